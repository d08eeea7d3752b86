"""github.com's web side: the OAuth sign-in and authorize pages, the token endpoint, and
clone/fetch/push over smart HTTP through `git http-backend` (`smart_http`), which answers
at the web address as GitHub's clone URLs do."""
