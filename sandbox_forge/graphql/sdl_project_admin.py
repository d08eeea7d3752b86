"""More of Projects (v2) in the forge's GraphQL SDL, by GitHub's public schema: status
updates (listed on a project, created by mutation), creating a project, deleting an item,
creating a field (iteration fields with their iterations), and fields' and views' database
ids (REST's field and view ids). It extends the types sdl_projects.py declares."""

PROJECT_ADMIN_SDL = """
enum ProjectV2StatusUpdateStatus {
  AT_RISK
  COMPLETE
  INACTIVE
  OFF_TRACK
  ON_TRACK
}

enum ProjectV2StatusUpdateOrderField {
  CREATED_AT
}

input ProjectV2StatusOrder {
  direction: OrderDirection!
  field: ProjectV2StatusUpdateOrderField!
}

type ProjectV2StatusUpdate implements Node {
  body: String
  createdAt: DateTime!
  creator: Actor
  id: ID!
  project: ProjectV2!
  startDate: Date
  status: ProjectV2StatusUpdateStatus
  targetDate: Date
  updatedAt: DateTime!
}

type ProjectV2StatusUpdateConnection {
  nodes: [ProjectV2StatusUpdate]
  pageInfo: PageInfo!
  totalCount: Int!
}

extend type ProjectV2 {
  statusUpdates(
    after: String
    before: String
    first: Int
    last: Int
    orderBy: ProjectV2StatusOrder
  ): ProjectV2StatusUpdateConnection!
}

extend type ProjectV2Field {
  databaseId: Int
}

extend type ProjectV2SingleSelectField {
  databaseId: Int
}

extend type ProjectV2IterationField {
  databaseId: Int
}

extend type ProjectV2View {
  databaseId: Int
}

input DeleteProjectV2ItemInput {
  clientMutationId: String
  itemId: ID!
  projectId: ID!
}

type DeleteProjectV2ItemPayload {
  clientMutationId: String
  deletedItemId: ID
}

input CreateProjectV2Input {
  clientMutationId: String
  ownerId: ID!
  repositoryId: ID
  teamId: ID
  title: String!
}

type CreateProjectV2Payload {
  clientMutationId: String
  projectV2: ProjectV2
}

input CreateProjectV2StatusUpdateInput {
  body: String
  clientMutationId: String
  projectId: ID!
  startDate: Date
  status: ProjectV2StatusUpdateStatus
  targetDate: Date
}

type CreateProjectV2StatusUpdatePayload {
  clientMutationId: String
  statusUpdate: ProjectV2StatusUpdate
}

enum ProjectV2CustomFieldType {
  DATE
  ITERATION
  NUMBER
  SINGLE_SELECT
  TEXT
}

enum ProjectV2SingleSelectFieldOptionColor {
  BLUE
  GRAY
  GREEN
  ORANGE
  PINK
  PURPLE
  RED
  YELLOW
}

input ProjectV2SingleSelectFieldOptionInput {
  color: ProjectV2SingleSelectFieldOptionColor!
  description: String!
  name: String!
}

input ProjectV2Iteration {
  duration: Int!
  startDate: Date!
  title: String!
}

input ProjectV2IterationFieldConfigurationInput {
  duration: Int!
  iterations: [ProjectV2Iteration!]!
  startDate: Date!
}

input CreateProjectV2FieldInput {
  clientMutationId: String
  dataType: ProjectV2CustomFieldType!
  iterationConfiguration: ProjectV2IterationFieldConfigurationInput
  name: String!
  projectId: ID!
  singleSelectOptions: [ProjectV2SingleSelectFieldOptionInput!]
}

type CreateProjectV2FieldPayload {
  clientMutationId: String
  projectV2Field: ProjectV2FieldConfiguration
}

extend type Mutation {
  createProjectV2(input: CreateProjectV2Input!): CreateProjectV2Payload
  createProjectV2Field(input: CreateProjectV2FieldInput!): CreateProjectV2FieldPayload
  createProjectV2StatusUpdate(
    input: CreateProjectV2StatusUpdateInput!
  ): CreateProjectV2StatusUpdatePayload
  deleteProjectV2Item(input: DeleteProjectV2ItemInput!): DeleteProjectV2ItemPayload
}
"""
