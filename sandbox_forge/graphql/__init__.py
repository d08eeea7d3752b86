"""POST /graphql: the subset of GitHub's GraphQL schema the forge serves (`sdl`, checked
against GitHub's published schema by the contract tests), built with graphql-core in
`endpoint`; `context` holds what every resolver shares (caller, errors, cursor
pagination), `views` the object types, `resolvers` the query roots and `mutations` the
review-thread and commit mutations.
"""
