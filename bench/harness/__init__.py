"""seam's benchmark harness: bench/run drives these modules."""
