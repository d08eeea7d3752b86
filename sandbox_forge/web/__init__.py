"""github.com's web side: the OAuth sign-in and authorize pages, and the token endpoint."""
