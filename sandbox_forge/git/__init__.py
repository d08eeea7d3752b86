"""Real git behind the forge: bare repositories driven through the git CLI with argument
lists (`store.GitRepo`), fast reads through a long-lived `git cat-file` process and caches
keyed by object id (`cat`, `cache`), parsed objects (`objects`), the git work behind pull
requests and their lazy mergeability (`pulls`, `mergeability`), and clone/fetch/push over
smart HTTP through `git http-backend` (`smart_http`).
"""
