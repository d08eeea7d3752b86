"""What a client is shown: the tool list and its toolsets, tool search, schema listing,
prompts and completions."""
