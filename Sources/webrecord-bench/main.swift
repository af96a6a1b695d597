print("webrecord-bench: not written yet")
