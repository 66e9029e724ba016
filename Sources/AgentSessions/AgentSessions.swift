/// Durable agent sessions: the lifecycle state machine, an append-only checksummed journal per
/// session, checkpoints, budgets and pricing, tool-call journaling, device conditions and the
/// offline queue. Knows nothing of JSON-RPC; the server maps it to the protocol.
public enum AgentSessionsModule {}
