"""The REST side of the forge: what every API answer shares and the endpoints themselves.

`middleware` applies GitHub's common behaviour to each request (the `/api/v3` prefix,
latency, faults, authentication, rate limits, ETags, the request log); `api` gives handlers
their context (`Ctx`, `@endpoint`, pagination, media types); `auth` turns credentials into
a `Principal`. The endpoints are in `routes/`, one module per area, and the JSON they
answer with is built in `shapes/`. GraphQL and the web side sit above and reuse `auth`, `api`
and the shapes; the rate-limit and fault stores and GitHub's error bodies sit below
(`stores/`, `kernel/`).
"""
