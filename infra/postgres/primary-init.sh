#!/bin/sh
# Run once by the official postgres image on the primary's first start (/docker-entrypoint-initdb.d): the role the
# standby streams WAL as, allowed from any address on the compose network with its password.
set -eu
password="$(cat /run/secrets/postgres_replication_password)"
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  --set=password="$password" <<'SQL'
CREATE ROLE replicator WITH REPLICATION LOGIN PASSWORD :'password';
SQL
echo "host replication replicator all scram-sha-256" >>"$PGDATA/pg_hba.conf"
