"""The GraphQL schema's SDL: the subset of GitHub's public schema the forge serves, with
GitHub's type, field and argument names and types (tests/forge_collab checks them against
@octokit/graphql-schema). endpoint.py builds it and attaches the resolvers.

This module holds the shared scalars, interfaces and roots, repositories, git objects, refs,
commit status checks and createCommitOnBranch; sdl_pulls.py holds the pull-request types."""

from sandbox_forge.graphql.sdl_projects import PROJECTS_SDL
from sandbox_forge.graphql.sdl_pulls import PULL_REQUEST_SDL

_REPOSITORY_SDL = """
scalar Base64String
scalar DateTime
scalar GitObjectID
scalar URI

interface Node {
  id: ID!
}

interface Actor {
  avatarUrl(size: Int): URI!
  login: String!
  resourcePath: URI!
  url: URI!
}

interface GitObject {
  abbreviatedOid: String!
  commitUrl: URI!
  id: ID!
  oid: GitObjectID!
}

enum CheckStatusState {
  COMPLETED
  IN_PROGRESS
  PENDING
  QUEUED
  REQUESTED
  WAITING
}

enum CheckConclusionState {
  ACTION_REQUIRED
  CANCELLED
  FAILURE
  NEUTRAL
  SKIPPED
  STALE
  STARTUP_FAILURE
  SUCCESS
  TIMED_OUT
}

enum StatusState {
  ERROR
  EXPECTED
  FAILURE
  PENDING
  SUCCESS
}

type CheckRun implements Node {
  conclusion: CheckConclusionState
  databaseId: Int
  id: ID!
  name: String!
  status: CheckStatusState!
}

type StatusContext implements Node {
  context: String!
  description: String
  id: ID!
  state: StatusState!
  targetUrl: URI
}

union StatusCheckRollupContext = CheckRun | StatusContext

type StatusCheckRollupContextConnection {
  nodes: [StatusCheckRollupContext]
  pageInfo: PageInfo!
  totalCount: Int!
}

type StatusCheckRollup implements Node {
  contexts(
    after: String
    before: String
    first: Int
    last: Int
  ): StatusCheckRollupContextConnection!
  id: ID!
  state: StatusState!
}

type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

type User implements Actor & Node {
  avatarUrl(size: Int): URI!
  id: ID!
  login: String!
  name: String
  resourcePath: URI!
  url: URI!
}

type Bot implements Actor & Node {
  avatarUrl(size: Int): URI!
  id: ID!
  login: String!
  resourcePath: URI!
  url: URI!
}

type Commit implements GitObject & Node {
  abbreviatedOid: String!
  commitUrl: URI!
  committedDate: DateTime!
  file(path: String!): TreeEntry
  id: ID!
  message: String!
  messageBody: String!
  messageHeadline: String!
  oid: GitObjectID!
  statusCheckRollup: StatusCheckRollup
  tree: Tree!
  url: URI!
}

type Blob implements GitObject & Node {
  abbreviatedOid: String!
  byteSize: Int!
  commitResourcePath: URI!
  commitUrl: URI!
  id: ID!
  isBinary: Boolean
  isTruncated: Boolean!
  oid: GitObjectID!
  text: String
}

type Tree implements GitObject & Node {
  abbreviatedOid: String!
  commitResourcePath: URI!
  commitUrl: URI!
  id: ID!
  oid: GitObjectID!
}

type Tag implements GitObject & Node {
  abbreviatedOid: String!
  commitResourcePath: URI!
  commitUrl: URI!
  id: ID!
  message: String
  name: String!
  oid: GitObjectID!
  target: GitObject!
}

type TreeEntry {
  extension: String
  mode: Int!
  name: String!
  object: GitObject
  oid: GitObjectID!
  path: String
  size: Int!
  type: String!
}

type RateLimit {
  cost: Int!
  limit: Int!
  nodeCount: Int!
  remaining: Int!
  resetAt: DateTime!
  used: Int!
}

type Ref implements Node {
  id: ID!
  name: String!
  prefix: String!
  target: GitObject
}

type Repository implements Node {
  defaultBranchRef: Ref
  id: ID!
  name: String!
  nameWithOwner: String!
  object(expression: String, oid: GitObjectID): GitObject
  pullRequest(number: Int!): PullRequest
  ref(qualifiedName: String!): Ref
  url: URI!
}

type Query {
  node(id: ID!): Node
  rateLimit(dryRun: Boolean = false): RateLimit
  repository(followRenames: Boolean, name: String!, owner: String!): Repository
  viewer: User!
}

input CommittableBranch {
  branchName: String
  id: ID
  repositoryNameWithOwner: String
}

input CommitMessage {
  body: String
  headline: String!
}

input FileAddition {
  contents: Base64String!
  path: String!
}

input FileDeletion {
  path: String!
}

input FileChanges {
  additions: [FileAddition!] = []
  deletions: [FileDeletion!] = []
}

input CreateCommitOnBranchInput {
  branch: CommittableBranch!
  clientMutationId: String
  expectedHeadOid: GitObjectID!
  fileChanges: FileChanges
  message: CommitMessage!
}

type CreateCommitOnBranchPayload {
  clientMutationId: String
  commit: Commit
  ref: Ref
}

type Mutation {
  addPullRequestReviewThread(
    input: AddPullRequestReviewThreadInput!
  ): AddPullRequestReviewThreadPayload
  addPullRequestReviewThreadReply(
    input: AddPullRequestReviewThreadReplyInput!
  ): AddPullRequestReviewThreadReplyPayload
  convertPullRequestToDraft(
    input: ConvertPullRequestToDraftInput!
  ): ConvertPullRequestToDraftPayload
  createCommitOnBranch(input: CreateCommitOnBranchInput!): CreateCommitOnBranchPayload
  markPullRequestReadyForReview(
    input: MarkPullRequestReadyForReviewInput!
  ): MarkPullRequestReadyForReviewPayload
  resolveReviewThread(input: ResolveReviewThreadInput!): ResolveReviewThreadPayload
  unresolveReviewThread(input: UnresolveReviewThreadInput!): UnresolveReviewThreadPayload
}
"""

SDL = _REPOSITORY_SDL + PULL_REQUEST_SDL + PROJECTS_SDL
