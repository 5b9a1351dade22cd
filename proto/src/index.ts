// Protobuf bus contracts (portolan.v1) and their generated TypeScript.
