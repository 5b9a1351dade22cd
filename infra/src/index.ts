// Local stack launcher (NATS, Postgres, Redis, HAProxy) and test-stack providers.
