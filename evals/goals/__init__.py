"""Goal files for `phone-agent eval --goals`: goals written apart from the tasks' own phrasings."""
