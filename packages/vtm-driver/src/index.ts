// vTM driver: renders the desired state into vTM objects, diffs against the read-back and pushes through REST.
