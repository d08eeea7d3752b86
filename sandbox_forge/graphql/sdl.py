"""The GraphQL schema's SDL: the subset of GitHub's public schema the forge serves, with
GitHub's type, field and argument names and types (tests/forge_collab checks them against
@octokit/graphql-schema). endpoint.py builds it and attaches the resolvers."""

SDL = """
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

enum CommentAuthorAssociation {
  COLLABORATOR
  CONTRIBUTOR
  FIRST_TIMER
  FIRST_TIME_CONTRIBUTOR
  MANNEQUIN
  MEMBER
  NONE
  OWNER
}

enum DiffSide {
  LEFT
  RIGHT
}

enum MergeableState {
  CONFLICTING
  MERGEABLE
  UNKNOWN
}

enum MergeStateStatus {
  BEHIND
  BLOCKED
  CLEAN
  DIRTY
  DRAFT
  HAS_HOOKS
  UNKNOWN
  UNSTABLE
}

enum PatchStatus {
  ADDED
  CHANGED
  COPIED
  DELETED
  MODIFIED
  RENAMED
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

type PullRequestChangedFile {
  additions: Int!
  changeType: PatchStatus!
  deletions: Int!
  path: String!
}

type PullRequestChangedFileConnection {
  nodes: [PullRequestChangedFile]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestCommit implements Node {
  commit: Commit!
  id: ID!
  resourcePath: URI!
  url: URI!
}

type PullRequestCommitConnection {
  nodes: [PullRequestCommit]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewConnection {
  nodes: [PullRequestReview]
  pageInfo: PageInfo!
  totalCount: Int!
}

enum PullRequestReviewDecision {
  APPROVED
  CHANGES_REQUESTED
  REVIEW_REQUIRED
}

enum PullRequestState {
  CLOSED
  MERGED
  OPEN
}

enum PullRequestReviewState {
  APPROVED
  CHANGES_REQUESTED
  COMMENTED
  DISMISSED
  PENDING
}

enum PullRequestReviewThreadSubjectType {
  FILE
  LINE
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

type PullRequest implements Node {
  additions: Int!
  author: Actor
  authorAssociation: CommentAuthorAssociation!
  baseRefName: String!
  baseRefOid: GitObjectID!
  body: String!
  changedFiles: Int!
  commits(after: String, before: String, first: Int, last: Int): PullRequestCommitConnection!
  createdAt: DateTime!
  deletions: Int!
  files(after: String, before: String, first: Int, last: Int): PullRequestChangedFileConnection
  headRefName: String!
  headRefOid: GitObjectID!
  id: ID!
  isDraft: Boolean!
  latestOpinionatedReviews(
    after: String
    before: String
    first: Int
    last: Int
    writersOnly: Boolean = false
  ): PullRequestReviewConnection
  latestReviews(after: String, before: String, first: Int, last: Int): PullRequestReviewConnection
  mergeStateStatus: MergeStateStatus!
  mergeable: MergeableState!
  mergedAt: DateTime
  number: Int!
  reviewDecision: PullRequestReviewDecision
  reviewThreads(
    after: String
    before: String
    first: Int
    last: Int
  ): PullRequestReviewThreadConnection!
  state: PullRequestState!
  title: String!
  url: URI!
}

type PullRequestReview implements Node {
  author: Actor
  authorAssociation: CommentAuthorAssociation!
  body: String!
  databaseId: Int
  id: ID!
  state: PullRequestReviewState!
  submittedAt: DateTime
}

type PullRequestReviewThreadConnection {
  edges: [PullRequestReviewThreadEdge]
  nodes: [PullRequestReviewThread]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewThreadEdge {
  cursor: String!
  node: PullRequestReviewThread
}

type PullRequestReviewThread implements Node {
  comments(
    after: String
    before: String
    first: Int
    last: Int
    skip: Int
  ): PullRequestReviewCommentConnection!
  diffSide: DiffSide!
  id: ID!
  isCollapsed: Boolean!
  isOutdated: Boolean!
  isResolved: Boolean!
  line: Int
  originalLine: Int
  path: String!
  pullRequest: PullRequest!
  resolvedBy: User
  startDiffSide: DiffSide
  startLine: Int
  subjectType: PullRequestReviewThreadSubjectType!
  viewerCanReply: Boolean!
  viewerCanResolve: Boolean!
  viewerCanUnresolve: Boolean!
}

type PullRequestReviewCommentConnection {
  edges: [PullRequestReviewCommentEdge]
  nodes: [PullRequestReviewComment]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewCommentEdge {
  cursor: String!
  node: PullRequestReviewComment
}

type PullRequestReviewComment implements Node {
  author: Actor
  authorAssociation: CommentAuthorAssociation!
  body: String!
  createdAt: DateTime!
  databaseId: Int
  diffHunk: String!
  id: ID!
  line: Int
  originalLine: Int
  outdated: Boolean!
  path: String!
  pullRequest: PullRequest!
  pullRequestReview: PullRequestReview
  replyTo: PullRequestReviewComment
  startLine: Int
  updatedAt: DateTime!
  url: URI!
}

type Query {
  node(id: ID!): Node
  rateLimit(dryRun: Boolean = false): RateLimit
  repository(followRenames: Boolean, name: String!, owner: String!): Repository
  viewer: User!
}

input ResolveReviewThreadInput {
  clientMutationId: String
  threadId: ID!
}

type ResolveReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}

input UnresolveReviewThreadInput {
  clientMutationId: String
  threadId: ID!
}

type UnresolveReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}

input AddPullRequestReviewThreadReplyInput {
  body: String!
  clientMutationId: String
  pullRequestReviewId: ID
  pullRequestReviewThreadId: ID!
}

type AddPullRequestReviewThreadReplyPayload {
  clientMutationId: String
  comment: PullRequestReviewComment
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
  addPullRequestReviewThreadReply(
    input: AddPullRequestReviewThreadReplyInput!
  ): AddPullRequestReviewThreadReplyPayload
  createCommitOnBranch(input: CreateCommitOnBranchInput!): CreateCommitOnBranchPayload
  resolveReviewThread(input: ResolveReviewThreadInput!): ResolveReviewThreadPayload
  unresolveReviewThread(input: UnresolveReviewThreadInput!): UnresolveReviewThreadPayload
}
"""
