"""The pull-request half of the forge's GraphQL SDL: pull requests, their files and commits,
reviews, review threads and comments, and the review-thread mutations' inputs and payloads.
sdl.py joins it to the repository/commit half; names and types follow GitHub's public schema."""

PULL_REQUEST_SDL = """
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
input MarkPullRequestReadyForReviewInput {
  clientMutationId: String
  pullRequestId: ID!
}

type MarkPullRequestReadyForReviewPayload {
  clientMutationId: String
  pullRequest: PullRequest
}

input ConvertPullRequestToDraftInput {
  clientMutationId: String
  pullRequestId: ID!
}

type ConvertPullRequestToDraftPayload {
  clientMutationId: String
  pullRequest: PullRequest
}
input AddPullRequestReviewThreadInput {
  body: String!
  clientMutationId: String
  line: Int
  path: String!
  pullRequestId: ID
  pullRequestReviewId: ID
  side: DiffSide = RIGHT
  startLine: Int
  startSide: DiffSide = RIGHT
  subjectType: PullRequestReviewThreadSubjectType = LINE
}

type AddPullRequestReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}
"""
