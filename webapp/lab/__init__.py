"""The evaluation lab: runs, their results, a question, two runs compared."""
