"""Real git behind the forge: bare repositories driven through the git CLI with argument
lists (`store.GitRepo`), fast reads through a long-lived `git cat-file` process and caches
keyed by object id (`cat`, `cache`), parsed objects and the forge's web-flow signature
(`objects`), and the git work behind pull requests: trial merges, commit ranges, replays
and diff positions (`pulls`). It knows nothing of users, pull request records or HTTP.
"""
