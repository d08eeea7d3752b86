"""The Projects (v2) part of the forge's GraphQL SDL, by GitHub's public schema: projects of
a user or an organisation, their fields, views and items with field values, and the item
mutations (add, update a field value, archive). It extends Query, Mutation and User, so
sdl.py's roots stay as they are."""

PROJECTS_SDL = """
scalar Date

enum IssueState {
  CLOSED
  OPEN
}

type Issue implements Node {
  id: ID!
  number: Int!
  repository: Repository!
  state: IssueState!
  title: String!
  url: URI!
}

type Organization implements Node {
  id: ID!
  login: String!
  name: String
  projectV2(number: Int!): ProjectV2
  projectsV2(
    after: String
    before: String
    first: Int
    last: Int
    query: String
  ): ProjectV2Connection!
  url: URI!
}

extend type User {
  projectV2(number: Int!): ProjectV2
  projectsV2(
    after: String
    before: String
    first: Int
    last: Int
    query: String
  ): ProjectV2Connection!
}

extend type Query {
  organization(login: String!): Organization
  user(login: String!): User
}

enum ProjectV2FieldType {
  DATE
  ITERATION
  NUMBER
  SINGLE_SELECT
  TEXT
  TITLE
}

enum ProjectV2ItemType {
  DRAFT_ISSUE
  ISSUE
  PULL_REQUEST
  REDACTED
}

enum ProjectV2ViewLayout {
  BOARD_LAYOUT
  ROADMAP_LAYOUT
  TABLE_LAYOUT
}

type ProjectV2 implements Node {
  closed: Boolean!
  field(name: String!): ProjectV2FieldConfiguration
  fields(
    after: String
    before: String
    first: Int
    last: Int
  ): ProjectV2FieldConfigurationConnection!
  id: ID!
  items(after: String, before: String, first: Int, last: Int): ProjectV2ItemConnection!
  number: Int!
  public: Boolean!
  readme: String
  shortDescription: String
  title: String!
  url: URI!
  views(after: String, before: String, first: Int, last: Int): ProjectV2ViewConnection!
}

type ProjectV2Connection {
  nodes: [ProjectV2]
  pageInfo: PageInfo!
  totalCount: Int!
}

type ProjectV2Field implements Node {
  dataType: ProjectV2FieldType!
  id: ID!
  name: String!
}

type ProjectV2SingleSelectFieldOption {
  description: String!
  id: String!
  name: String!
}

type ProjectV2SingleSelectField implements Node {
  dataType: ProjectV2FieldType!
  id: ID!
  name: String!
  options(names: [String!]): [ProjectV2SingleSelectFieldOption!]!
}

type ProjectV2IterationFieldIteration {
  duration: Int!
  id: String!
  startDate: Date!
  title: String!
}

type ProjectV2IterationFieldConfiguration {
  completedIterations: [ProjectV2IterationFieldIteration!]!
  duration: Int!
  iterations: [ProjectV2IterationFieldIteration!]!
  startDay: Int!
}

type ProjectV2IterationField implements Node {
  configuration: ProjectV2IterationFieldConfiguration!
  dataType: ProjectV2FieldType!
  id: ID!
  name: String!
}

union ProjectV2FieldConfiguration =
  | ProjectV2Field
  | ProjectV2IterationField
  | ProjectV2SingleSelectField

type ProjectV2FieldConfigurationConnection {
  nodes: [ProjectV2FieldConfiguration]
  pageInfo: PageInfo!
  totalCount: Int!
}

type ProjectV2View implements Node {
  filter: String
  id: ID!
  layout: ProjectV2ViewLayout!
  name: String!
  number: Int!
}

type ProjectV2ViewConnection {
  nodes: [ProjectV2View]
  pageInfo: PageInfo!
  totalCount: Int!
}

union ProjectV2ItemContent = Issue | PullRequest

type ProjectV2ItemFieldTextValue implements Node {
  field: ProjectV2FieldConfiguration!
  id: ID!
  text: String
}

type ProjectV2ItemFieldNumberValue implements Node {
  field: ProjectV2FieldConfiguration!
  id: ID!
  number: Float
}

type ProjectV2ItemFieldDateValue implements Node {
  date: Date
  field: ProjectV2FieldConfiguration!
  id: ID!
}

type ProjectV2ItemFieldSingleSelectValue implements Node {
  field: ProjectV2FieldConfiguration!
  id: ID!
  name: String
  optionId: String
}

type ProjectV2ItemFieldIterationValue implements Node {
  duration: Int!
  field: ProjectV2FieldConfiguration!
  id: ID!
  iterationId: String!
  startDate: Date!
  title: String!
}

union ProjectV2ItemFieldValue =
  | ProjectV2ItemFieldDateValue
  | ProjectV2ItemFieldIterationValue
  | ProjectV2ItemFieldNumberValue
  | ProjectV2ItemFieldSingleSelectValue
  | ProjectV2ItemFieldTextValue

type ProjectV2ItemFieldValueConnection {
  nodes: [ProjectV2ItemFieldValue]
  pageInfo: PageInfo!
  totalCount: Int!
}

type ProjectV2Item implements Node {
  content: ProjectV2ItemContent
  fieldValueByName(name: String!): ProjectV2ItemFieldValue
  fieldValues(
    after: String
    before: String
    first: Int
    last: Int
  ): ProjectV2ItemFieldValueConnection!
  id: ID!
  isArchived: Boolean!
  project: ProjectV2!
  type: ProjectV2ItemType!
}

type ProjectV2ItemConnection {
  nodes: [ProjectV2Item]
  pageInfo: PageInfo!
  totalCount: Int!
}

input AddProjectV2ItemByIdInput {
  clientMutationId: String
  contentId: ID!
  projectId: ID!
}

type AddProjectV2ItemByIdPayload {
  clientMutationId: String
  item: ProjectV2Item
}

input ProjectV2FieldValue {
  date: Date
  iterationId: String
  number: Float
  singleSelectOptionId: String
  text: String
}

input UpdateProjectV2ItemFieldValueInput {
  clientMutationId: String
  fieldId: ID!
  itemId: ID!
  projectId: ID!
  value: ProjectV2FieldValue!
}

type UpdateProjectV2ItemFieldValuePayload {
  clientMutationId: String
  projectV2Item: ProjectV2Item
}

input ArchiveProjectV2ItemInput {
  clientMutationId: String
  itemId: ID!
  projectId: ID!
}

type ArchiveProjectV2ItemPayload {
  clientMutationId: String
  item: ProjectV2Item
}

extend type Mutation {
  addProjectV2ItemById(input: AddProjectV2ItemByIdInput!): AddProjectV2ItemByIdPayload
  archiveProjectV2Item(input: ArchiveProjectV2ItemInput!): ArchiveProjectV2ItemPayload
  updateProjectV2ItemFieldValue(
    input: UpdateProjectV2ItemFieldValueInput!
  ): UpdateProjectV2ItemFieldValuePayload
}
"""
