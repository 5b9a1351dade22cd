// Postgres store: kysely schema, migrations, test databases.
