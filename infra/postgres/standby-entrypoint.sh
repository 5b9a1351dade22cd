#!/bin/sh
# The streaming standby of docker-compose.yml (user postgres, official postgres image). On its first start it
# takes a base backup of the primary through a replication slot of its own, with -R writing primary_conninfo and
# standby.signal; afterwards it starts from its data as a hot standby. The primary waits for it to flush every
# commit (synchronous_standby_names on the primary). Promotion is left to an operator or a failover manager.
set -eu
primary="${POSTGRES_PRIMARY_HOST:-postgres-1}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  until pg_isready -h "$primary" -U portolan -q; do sleep 1; done
  PGPASSWORD="$(cat /run/secrets/postgres_replication_password)" \
    pg_basebackup -h "$primary" -U replicator -D "$PGDATA" -R -X stream --create-slot --slot=standby_2
  chmod 700 "$PGDATA"
fi
exec postgres -c hot_standby=on
