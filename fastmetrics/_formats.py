"""The file formats the stages read and write, named apart from their readers and writers: the
command line's help lists them without loading pyarrow, numba or the stages."""

# what the io stage reads (``format=``); "auto" picks by suffix, then by the first data line
INPUT_FORMATS = ("auto", "parquet", "csv", "ipc", "run", "trec", "qrels")
# what report.tables writes, by the output file's suffix
OUTPUT_SUFFIXES = (".parquet", ".csv", ".json", ".md", ".tex", ".html")
