// NATS JetStream bus: stream/consumer declaration, publish with ids and trace headers, consume with explicit ack.
