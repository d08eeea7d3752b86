"""Projects (v2): projects (reading projects and items, the item writes) and project_admin
(fields, views, status updates and the project writes).
"""
