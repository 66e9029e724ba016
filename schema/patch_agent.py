#!/usr/bin/env python3
"""Adds (or replaces) the agent-session methods, notifications and error codes in schema/openrpc.json.

docs/protocol.md, "Agent sessions", is the contract described here: session/create, get, list,
messages, delete, transition, appendMessages, recordUsage, checkpoint, resume, callTool;
agent/listTools; host/didEnterBackground, willEnterForeground, setConditions, getConditions;
queue/enqueue, list, complete, fail; the server notifications session/didChangeState and
queue/ready; the component schemas they use; and the domain codes InvalidTransition (data.from,
data.to, data.allowed), BudgetExceeded and SessionLocked (data.owner, data.expiresAt), all sent
with -32803.

Idempotent: running it twice gives the same file. Everything else in the document is left as
it is. Written back with json.dump(indent=2, ensure_ascii=False) and a trailing newline.

    python3 schema/patch_agent.py [path/to/openrpc.json]
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schema_patching import (  # noqa: E402
    STANDARD_ERRORS, add_domain_codes, example, param, place_methods, ref, required_rule, rewrite, rule_code,
)

SCHEMA = Path(__file__).resolve().parent / "openrpc.json"


def note_example(name, params: dict) -> dict:
    return {"name": name, "params": [{"name": k, "value": v} for k, v in params.items()]}


def obj(properties: dict, required: list[str], description: str | None = None) -> dict:
    s = {}
    if description:
        s["description"] = description
    s.update({"type": "object", "properties": properties, "required": required, "additionalProperties": False})
    return s


ANY = {"description": "Any JSON value."}
COUNT = {"type": "integer", "minimum": 0}
TOKENS = {"type": "integer", "minimum": 0, "maximum": 2147483647}
LIMIT_NAMES = ["maxInputTokens", "maxOutputTokens", "maxTurns", "maxCostUSD"]
POLICY_REASONS = ["lowBattery", "lowPowerMode", "thermal", "offline", "expensiveNetwork", "constrainedNetwork"]

# -- component schemas -----------------------------------------------------------

SCHEMAS = {
    "SessionId": {
        "description": "A session's id, given by the server (e.g. sess_0123456789abcdef).",
        "type": "string",
        "minLength": 1,
    },
    "SessionState": {
        "description": "idle→running; running→waitingForUser|backgrounded|completed|failed; "
                       "waitingForUser→running|backgrounded; backgrounded→running|completed; completed and failed "
                       "are final. (Going over a budget moves any non-final state to failed.)",
        "type": "string",
        "enum": ["idle", "running", "waitingForUser", "backgrounded", "completed", "failed"],
    },
    "ModelTier": {
        "description": "Model size class, smallest (cheapest) first.",
        "type": "string",
        "enum": ["fast", "balanced", "powerful"],
    },
    "SessionConfig": obj({
        "modelTier": ref("ModelTier"),
        "model": {"type": "string", "description": "A model name; a price for it in pricing.json wins over the tier's."},
        "maxInputTokens": {"type": "integer", "minimum": 0},
        "maxOutputTokens": {"type": "integer", "minimum": 0},
        "maxTurns": {"type": "integer", "minimum": 0},
        "maxCostUSD": {"type": "number", "minimum": 0},
    }, [], "The model choice and the budget; only the members that are set. A limit is exceeded when usage "
           "goes over it (reaching it is allowed)."),
    "Usage": obj({
        "inputTokens": COUNT,
        "outputTokens": COUNT,
        "turns": {"type": "integer", "minimum": 0, "description": "recordUsage calls counted."},
        "estimatedCostUSD": {"type": "number", "minimum": 0,
                             "description": "An estimate from the pricing table (per million tokens)."},
    }, ["inputTokens", "outputTokens", "turns", "estimatedCostUSD"],
        "The sums of every acknowledged recordUsage call."),
    "BudgetRemaining": obj({
        "inputTokens": COUNT,
        "outputTokens": COUNT,
        "turns": COUNT,
        "costUSD": {"type": "number", "minimum": 0},
    }, [], "What is left of each limit the session has (only those), never negative."),
    "SessionError": {
        "description": "Why a failed session failed: the error given with session/transition to failed, or "
                       "{code: BudgetExceeded, message, exceeded, usage, limits} when a budget stopped it.",
        "type": "object",
        "properties": {
            "code": {"type": "string"},
            "message": {"type": "string"},
            "exceeded": {"type": "array", "items": {"type": "string", "enum": LIMIT_NAMES}},
            "usage": ref("Usage"),
            "limits": ref("SessionConfig"),
        },
        "additionalProperties": True,
    },
    "ToolCallRecord": obj({
        "toolCallId": {"type": "string", "minLength": 1},
        "name": {"type": "string"},
        "arguments": {"description": "The call's arguments as given (an object, or whatever the front end declared)."},
        "status": {"type": "string", "enum": ["pending", "running", "interrupted"],
                   "description": "pending: declared by the front end in a checkpoint; running: running in this server "
                                  "(or in the lease owner's); interrupted: begun before a crash and never finished "
                                  "(call it again with the same toolCallId)."},
        "startedAt": ref("Timestamp"),
    }, ["toolCallId", "name", "arguments", "status"], "A tool call that has no result yet."),
    "PendingToolCallInput": {
        "description": "A pending tool call as a front end declares it in a checkpoint: {toolCallId | id, name, "
                       "arguments}, or the OpenAI shape {id, function: {name, arguments}}.",
        "type": "object",
        "properties": {
            "toolCallId": {"type": "string", "minLength": 1},
            "id": {"type": "string", "minLength": 1},
            "name": {"type": "string"},
            "arguments": ANY,
            "function": {"type": "object", "properties": {"name": {"type": "string"}, "arguments": ANY}},
        },
        "anyOf": [{"required": ["toolCallId"]}, {"required": ["id"]}],
    },
    "Session": obj({
        "id": ref("SessionId"),
        "title": {"type": "string"},
        "agentType": {"type": "string"},
        "state": ref("SessionState"),
        "error": {"description": "Only when state is failed.", **ref("SessionError")},
        "config": ref("SessionConfig"),
        "usage": ref("Usage"),
        "pendingToolCalls": {"type": "array", "items": ref("ToolCallRecord")},
        "metadata": {"description": "As given to session/create."},
        "createdAt": ref("Timestamp"),
        "updatedAt": ref("Timestamp"),
    }, ["id", "title", "agentType", "state", "config", "usage", "pendingToolCalls", "createdAt", "updatedAt"],
        "An agent session."),
    "SessionList": obj({
        "sessions": {"type": "array", "items": ref("Session")},
        "nextCursor": {"type": "string", "description": "Present when more follow: pass it back as cursor."},
    }, ["sessions"]),
    "MessageRole": {"type": "string", "enum": ["user", "assistant", "system", "tool"]},
    "MessageInput": {
        "type": "object",
        "properties": {
            "id": {"type": "string", "minLength": 1,
                   "description": "A message with an id already stored is not stored again; without one the server "
                                  "gives it one."},
            "role": ref("MessageRole"),
            "content": {"description": "The message content (a string or content parts): any JSON."},
            "toolCalls": {"description": "The assistant's tool calls, in the front end's shape."},
            "toolCallId": {"type": "string", "description": "For role tool: the call this answers."},
        },
        "required": ["role", "content"],
    },
    "Message": obj({
        "id": {"type": "string", "minLength": 1},
        "role": ref("MessageRole"),
        "content": {"description": "As appended."},
        "toolCalls": {"description": "As appended."},
        "toolCallId": {"type": "string"},
        "at": {"description": "When it was stored.", **ref("Timestamp")},
    }, ["id", "role", "content", "at"], "A stored message."),
    "MessageList": obj({"messages": {"type": "array", "items": ref("Message")}}, ["messages"]),
    "SessionDeleted": obj({"id": ref("SessionId"), "deleted": {"const": True}}, ["id", "deleted"]),
    "AppendResult": obj({"count": {"type": "integer", "minimum": 0,
                                   "description": "How many messages were new (stored now)."}}, ["count"]),
    "UsageReport": obj({
        "usage": ref("Usage"),
        "remaining": ref("BudgetRemaining"),
        "exceeded": {"type": "array", "items": {"type": "string", "enum": LIMIT_NAMES},
                     "description": "The limits now exceeded; when not empty the session was moved to failed "
                                    "(error.code BudgetExceeded) in the same durable step."},
    }, ["usage", "remaining", "exceeded"]),
    "CheckpointResult": obj({"checkpointId": {"type": "string", "minLength": 1}, "at": ref("Timestamp")},
                            ["checkpointId", "at"]),
    "Checkpoint": obj({
        "checkpointId": {"type": "string", "minLength": 1},
        "at": ref("Timestamp"),
        "pendingToolCalls": {"type": "array", "items": ref("ToolCallRecord")},
        "partialResults": {"description": "The partial results of the last checkpoint that carried any, or null."},
    }, ["checkpointId", "at", "pendingToolCalls", "partialResults"], "A session's last checkpoint."),
    "ResumeResult": obj({
        "session": ref("Session"),
        "messagesTail": {"type": "array", "maxItems": 50, "items": ref("Message"),
                         "description": "The last messages (up to 50), oldest first."},
        "pendingToolCalls": {"type": "array", "items": ref("ToolCallRecord")},
        "partialResults": {"description": "The partial results of the last checkpoint that carried any, or null."},
    }, ["session", "messagesTail", "pendingToolCalls", "partialResults"]),
    "ToolAnnotations": obj({
        "title": {"type": "string"},
        "readOnlyHint": {"type": "boolean"},
        "destructiveHint": {"type": "boolean"},
        "idempotentHint": {"type": "boolean"},
        "openWorldHint": {"type": "boolean"},
    }, ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"], "Hints as in MCP."),
    "ToolDefinition": obj({
        "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]*$"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "inputSchema": {"type": "object", "description": "A JSON Schema of the arguments."},
        "outputSchema": {"type": "object", "description": "A JSON Schema of structuredContent."},
        "annotations": ref("ToolAnnotations"),
        "requiresNetwork": {"type": "boolean"},
    }, ["name", "title", "description", "inputSchema", "outputSchema", "annotations", "requiresNetwork"],
        "One tool of the agent tool table."),
    "ToolContent": obj({"type": {"type": "string", "enum": ["text"]}, "text": {"type": "string"}}, ["type", "text"]),
    "ToolResult": obj({
        "content": {"type": "array", "items": ref("ToolContent"), "description": "Text for the model."},
        "structuredContent": {"type": "object",
                              "description": "The same facts as structured data (the tool's outputSchema); for "
                                             "isError: {error, code?} with code a data.code of the schema (e.g. "
                                             "OutsideWorkspace) or InvalidParams for bad arguments."},
        "isError": {"type": "boolean"},
    }, ["content", "structuredContent", "isError"], "The result of one tool call (the shape of MCP tools/call)."),
    "DeviceConditions": obj({
        "network": {"type": "string", "enum": ["offline", "wifi", "cellular", "wired"]},
        "isExpensive": {"type": "boolean"},
        "isConstrained": {"type": "boolean", "description": "Low Data Mode."},
        "batteryLevel": {"type": "number", "minimum": 0, "maximum": 1},
        "isCharging": {"type": "boolean"},
        "isLowPowerMode": {"type": "boolean"},
        "thermalState": {"type": "string", "enum": ["nominal", "fair", "serious", "critical"]},
    }, ["network", "isExpensive", "isConstrained", "isCharging", "isLowPowerMode"], "What the host reported."),
    "Policy": obj({
        "deferHeavyWork": {"type": "boolean"},
        "maxModelTier": ref("ModelTier"),
        "allowNetworkTools": {"type": "boolean"},
        "reasons": {"type": "array", "items": {"type": "string", "enum": POLICY_REASONS},
                    "description": "The rules that applied, in table order."},
        "message": {"type": "string", "description": "When something is limited (offline: what still works)."},
    }, ["deferHeavyWork", "maxModelTier", "allowNetworkTools", "reasons"], "What the device conditions allow."),
    "QueueItem": obj({
        "id": {"type": "string", "minLength": 1},
        "kind": {"type": "string", "minLength": 1},
        "payload": ANY,
        "idempotencyKey": {"type": "string", "minLength": 1},
        "requiresNetwork": {"type": "boolean"},
        "status": {"type": "string", "enum": ["pending", "completed", "failed"]},
        "attempts": {"type": "integer", "minimum": 0, "description": "How many times it failed."},
        "result": {"description": "As given to queue/complete."},
        "error": {"description": "As given to the last queue/fail."},
        "createdAt": ref("Timestamp"),
        "updatedAt": ref("Timestamp"),
    }, ["id", "kind", "payload", "idempotencyKey", "requiresNetwork", "status", "attempts", "createdAt", "updatedAt"],
        "One piece of work in the offline queue."),
    "QueueList": obj({"items": {"type": "array", "items": ref("QueueItem")}}, ["items"]),
}

# -- examples ---------------------------------------------------------------------

T0, T1, T2 = "2025-11-22T10:00:00.000Z", "2025-11-22T10:00:05.250Z", "2025-11-22T10:01:00.000Z"
SESSION = {
    "id": "sess_0123456789abcdef", "title": "Plan the trip", "agentType": "default", "state": "idle",
    "config": {"modelTier": "balanced", "maxCostUSD": 0.5},
    "usage": {"inputTokens": 0, "outputTokens": 0, "turns": 0, "estimatedCostUSD": 0.0},
    "pendingToolCalls": [], "createdAt": T0, "updatedAt": T0,
}
RUNNING = {**SESSION, "state": "running", "updatedAt": T1}
BACKGROUNDED = {**SESSION, "state": "backgrounded", "updatedAt": T2}
MESSAGE = {"id": "m1", "role": "user", "content": "Find flights to Lisbon.", "at": T1}
PENDING = {"toolCallId": "call_1", "name": "read_file", "arguments": {"path": "Research/trip.md"}, "status": "pending"}
CHECKPOINT = {"checkpointId": "ckpt_0123456789abcdef", "at": T2, "pendingToolCalls": [PENDING],
              "partialResults": {"draft": "Day 1: …"}}
POLICY_OFFLINE = {"deferHeavyWork": True, "maxModelTier": "powerful", "allowNetworkTools": False,
                  "reasons": ["lowBattery", "offline"],
                  "message": "The device is offline: tools that need the network are unavailable until it returns. "
                             "Still available offline: read_file, write_file, …"}
CONDITIONS = {"network": "offline", "isExpensive": False, "isConstrained": False, "batteryLevel": 0.1,
              "isCharging": False, "isLowPowerMode": False}
ITEM = {"id": "q_0123456789abcdef", "kind": "sync", "payload": {"path": "Research/trip.md"},
        "idempotencyKey": "sync-trip-1", "requiresNetwork": True, "status": "pending", "attempts": 0,
        "createdAt": T0, "updatedAt": T0}
TOOL = {
    "name": "read_file", "title": "Read a file", "description": "Reads a text file of the workspace.",
    "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"],
                    "additionalProperties": False},
    "outputSchema": {"type": "object", "properties": {"data": {"type": "string"}}},
    "annotations": {"title": "Read a file", "readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                    "openWorldHint": False},
    "requiresNetwork": False,
}

# -- methods --------------------------------------------------------------------

ID_PARAM = param("id", ref("SessionId"), required=True)


def method(name, summary, params, result_name, result_schema, examples, description=None) -> dict:
    m = {"name": name, "summary": summary}
    if description:
        m["description"] = description
    m.update({"paramStructure": "by-name", "params": params,
              "result": {"name": result_name, "schema": result_schema},
              "errors": STANDARD_ERRORS, "examples": examples})
    return m


METHODS = [
    method("session/create", "Creates a session (state idle), durable before the answer, owned by this device (lease).",
           [param("title", {"type": "string"}, description="Default \"Untitled\"."),
            param("agentType", {"type": "string"}, description="Default \"default\"."),
            param("config", ref("SessionConfig")),
            param("metadata", ANY, description="Kept with the session and returned as given.")],
           "Session", ref("Session"),
           [example("create", {"title": "Plan the trip", "config": {"modelTier": "balanced", "maxCostUSD": 0.5}},
                    SESSION)],
           description="A bad config (wrong types, negative limits) → -32602 on config."),
    method("session/get", "One session.", [ID_PARAM], "Session", ref("Session"),
           [example("get", {"id": "sess_0123456789abcdef"}, SESSION)],
           description="Unknown id → NotFound (data.id)."),
    method("session/list", "Sessions in creation order, a page at a time, optionally of one state.",
           [param("state", ref("SessionState")),
            param("limit", {"type": "integer", "minimum": 1, "maximum": 1000, "default": 50}),
            param("cursor", {"type": "string"}, description="nextCursor of the page before.")],
           "SessionList", ref("SessionList"),
           [example("running ones", {"state": "running", "limit": 1},
                    {"sessions": [RUNNING], "nextCursor": "c1:1763805600000000000:sess_0123456789abcdef"})],
           description="A cursor that cannot be read → InvalidArgument."),
    method("session/messages", "Stored messages in append order: those after message `after`, at most `limit`.",
           [ID_PARAM, param("after", {"type": "string"}, description="A message id; from the start when absent."),
            param("limit", {"type": "integer", "minimum": 1, "maximum": 10000, "default": 100})],
           "MessageList", ref("MessageList"),
           [example("first page", {"id": "sess_0123456789abcdef", "limit": 1}, {"messages": [MESSAGE]})],
           description="An `after` the session does not have → InvalidArgument."),
    method("session/delete", "Removes a session and its folder (needs the lease).", [ID_PARAM],
           "SessionDeleted", ref("SessionDeleted"),
           [example("delete", {"id": "sess_0123456789abcdef"}, {"id": "sess_0123456789abcdef", "deleted": True})]),
    method("session/transition", "Moves a session along the state table; sends session/didChangeState.",
           [ID_PARAM, param("to", ref("SessionState"), required=True),
            param("error", {"type": "object", "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
                            "description": "With to: failed: why (kept as the session's error)."})],
           "Session", ref("Session"),
           [example("start", {"id": "sess_0123456789abcdef", "to": "running"}, RUNNING)],
           description="A move not in the table → InvalidTransition with data.from, data.to and data.allowed "
                       "(the states `from` may move to). Another device holding the lease → SessionLocked."),
    method("session/appendMessages", "Appends messages durably (one record: all or, after a crash, none); a message "
                                     "id seen before is not stored twice.",
           [ID_PARAM, param("messages", {"type": "array", "items": ref("MessageInput")}, required=True)],
           "AppendResult", ref("AppendResult"),
           [example("append", {"id": "sess_0123456789abcdef",
                               "messages": [{"id": "m1", "role": "user", "content": "Find flights to Lisbon."}]},
                    {"count": 1})]),
    method("session/recordUsage", "Counts one turn and prices it; going over a limit fails the session "
                                  "(BudgetExceeded) in the same durable step.",
           [ID_PARAM, param("inputTokens", TOKENS, required=True), param("outputTokens", TOKENS, required=True),
            param("model", {"type": "string"}, description="Priced by this model's price when pricing.json has one.")],
           "UsageReport", ref("UsageReport"),
           [example("a turn", {"id": "sess_0123456789abcdef", "inputTokens": 1000, "outputTokens": 200},
                    {"usage": {"inputTokens": 1000, "outputTokens": 200, "turns": 1, "estimatedCostUSD": 0.006},
                     "remaining": {"costUSD": 0.494}, "exceeded": []})],
           description="Prices per million tokens: fast $0.25 in / $1.25 out, balanced $3 / $15, powerful $15 / $75 "
                       "(unless <config dir>/pricing.json overrides them). On a completed session → InvalidArgument; "
                       "on one that failed over its budget → BudgetExceeded."),
    method("session/checkpoint", "Records the front end's pending tool calls and partial results, durably.",
           [ID_PARAM,
            param("pendingToolCalls", {"type": "array", "items": ref("PendingToolCallInput")},
                  description="Replaces the ones declared before; absent keeps them."),
            param("partialResults", ANY, description="Absent keeps the last ones.")],
           "CheckpointResult", ref("CheckpointResult"),
           [example("checkpoint", {"id": "sess_0123456789abcdef",
                                   "pendingToolCalls": [{"toolCallId": "call_1", "name": "read_file",
                                                         "arguments": {"path": "Research/trip.md"}}],
                                   "partialResults": {"draft": "Day 1: …"}},
                    {"checkpointId": "ckpt_0123456789abcdef", "at": T2})]),
    method("session/resume", "What the front end needs to continue (the last 50 messages, pending tool calls, "
                             "partial results); moves a backgrounded session to running.",
           [ID_PARAM], "ResumeResult", ref("ResumeResult"),
           [example("resume", {"id": "sess_0123456789abcdef"},
                    {"session": RUNNING, "messagesTail": [MESSAGE], "pendingToolCalls": [PENDING],
                     "partialResults": {"draft": "Day 1: …"}})]),
    method("session/callTool", "Runs one tool of agent/listTools for a session: intent journaled before, result "
                               "after; the same toolCallId again returns the recorded result without running it.",
           [ID_PARAM, param("toolCallId", {"type": "string", "minLength": 1}, required=True),
            param("name", {"type": "string"}, required=True),
            param("arguments", {"type": "object"}, required=True)],
           "ToolResult", ref("ToolResult"),
           [example("write", {"id": "sess_0123456789abcdef", "toolCallId": "call_2", "name": "write_file",
                              "arguments": {"path": "Research/trip.md", "content": "Lisbon"}},
                    {"content": [{"type": "text", "text": "Wrote 6 bytes to Research/trip.md."}],
                     "structuredContent": {"path": "Research/trip.md", "size": 6, "etag": "0b9c8d7e6f5a4b3c",
                                           "modified": T2},
                     "isError": False}),
            example("outside", {"id": "sess_0123456789abcdef", "toolCallId": "call_3", "name": "read_file",
                                "arguments": {"path": "../secret"}},
                    {"content": [{"type": "text", "text": "read_file failed: invalid path '../secret'"}],
                     "structuredContent": {"error": "read_file failed: invalid path '../secret'",
                                           "code": "OutsideWorkspace"},
                     "isError": True})],
           description="An unknown tool name → -32602 (data.field name). Bad arguments (against the tool's "
                       "inputSchema) and domain failures are results with isError true and a message the model can "
                       "act on. A call cut off by a crash shows in session/get pendingToolCalls with status "
                       "interrupted."),
    method("agent/listTools", "The one agent tool table, in a stable order: the user's file methods (not the "
                              "host-only ones), read_context/update_context and append_journal.",
           [], "ToolList", {"type": "array", "items": ref("ToolDefinition")},
           [example("tools", {}, [TOOL])]),
    method("host/didEnterBackground", "Checkpoints every running or waitingForUser session and moves it to "
                                      "backgrounded; answers when all of it is durable.",
           [], "BackgroundResult", obj({"sessions": {"type": "array", "items": ref("Session"),
                                                     "description": "The sessions it moved."}}, ["sessions"]),
           [example("background", {}, {"sessions": [BACKGROUNDED]})]),
    method("host/willEnterForeground", "The backgrounded sessions with their last checkpoints, for the front end "
                                       "to resume.",
           [], "ForegroundResult",
           obj({"sessions": {"type": "array", "items": obj({
               "session": ref("Session"),
               "checkpoint": {"oneOf": [ref("Checkpoint"), {"type": "null"}]},
           }, ["session", "checkpoint"])}}, ["sessions"]),
           [example("foreground", {}, {"sessions": [{"session": BACKGROUNDED, "checkpoint": CHECKPOINT}]})]),
    method("host/setConditions", "Reports the device's conditions; answers the policy that follows. From offline "
                                 "to online sends queue/ready with the due items.",
           [param("network", {"type": "string", "enum": ["offline", "wifi", "cellular", "wired"]}, required=True),
            param("isExpensive", {"type": "boolean"}),
            param("isConstrained", {"type": "boolean"}, description="Low Data Mode."),
            param("batteryLevel", {"type": "number", "minimum": 0, "maximum": 1}),
            param("isCharging", {"type": "boolean"}, description="Not charging when absent."),
            param("isLowPowerMode", {"type": "boolean"}),
            param("thermalState", {"type": "string", "enum": ["nominal", "fair", "serious", "critical"]})],
           "PolicyResult", obj({"policy": ref("Policy")}, ["policy"]),
           [example("offline on a low battery", {"network": "offline", "batteryLevel": 0.1, "isCharging": False},
                    {"policy": POLICY_OFFLINE})],
           description="Battery under 20% and not charging, or a serious or critical thermal state: deferHeavyWork. "
                       "Low Power Mode: maxModelTier fast. An expensive network: at most balanced. Offline: "
                       "allowNetworkTools false, with a message listing what still works."),
    method("host/getConditions", "The conditions last reported (online, unmetered before any) and their policy.",
           [], "ConditionsResult", obj({"conditions": ref("DeviceConditions"), "policy": ref("Policy")},
                                       ["conditions", "policy"]),
           [example("conditions", {}, {"conditions": CONDITIONS, "policy": POLICY_OFFLINE})]),
    method("queue/enqueue", "Adds work for when the network returns, durably; the same idempotencyKey returns the "
                            "first item and never makes a second.",
           [param("kind", {"type": "string", "minLength": 1}, required=True),
            param("payload", ANY, required=True),
            param("idempotencyKey", {"type": "string", "minLength": 1}, required=True),
            param("requiresNetwork", {"type": "boolean", "default": True})],
           "QueueItem", ref("QueueItem"),
           [example("enqueue", {"kind": "sync", "payload": {"path": "Research/trip.md"},
                                "idempotencyKey": "sync-trip-1"}, ITEM)]),
    method("queue/list", "Every item, in enqueue order.", [], "QueueList", ref("QueueList"),
           [example("list", {}, {"items": [ITEM]})]),
    method("queue/complete", "Marks an item completed.",
           [param("id", {"type": "string", "minLength": 1}, required=True), param("result", ANY)],
           "QueueItem", ref("QueueItem"),
           [example("complete", {"id": "q_0123456789abcdef", "result": {"ok": True}},
                    {**ITEM, "status": "completed", "result": {"ok": True}, "updatedAt": T2})]),
    method("queue/fail", "Records a failed attempt: with retry the item is pending again, else failed (final).",
           [param("id", {"type": "string", "minLength": 1}, required=True),
            param("error", ANY, required=True),
            param("retry", {"type": "boolean", "default": False})],
           "QueueItem", ref("QueueItem"),
           [example("fail and retry", {"id": "q_0123456789abcdef", "error": {"message": "timeout"}, "retry": True},
                    {**ITEM, "attempts": 1, "error": {"message": "timeout"}, "updatedAt": T2})]),
]

NOTIFICATIONS = [
    {
        "name": "session/didChangeState",
        "summary": "A session's state changed (by a transition, backgrounding, resume, or a budget), once durable.",
        "paramStructure": "by-name",
        "params": [
            param("id", ref("SessionId"), required=True),
            param("from", ref("SessionState"), required=True),
            param("to", ref("SessionState"), required=True),
            param("reason", {"type": "string"},
                  description="BudgetExceeded, background, resume, or the message of the error given with failed."),
        ],
        "examples": [note_example("budget", {"id": "sess_0123456789abcdef", "from": "running", "to": "failed",
                                             "reason": "BudgetExceeded"})],
        "x-notification": "server",
    },
    {
        "name": "queue/ready",
        "summary": "The network came back (host/setConditions from offline to online): the due items, in enqueue "
                   "order.",
        "paramStructure": "by-name",
        "params": [param("items", {"type": "array", "items": ref("QueueItem")}, required=True)],
        "examples": [note_example("ready", {"items": [ITEM]})],
        "x-notification": "server",
    },
]

# -- error codes ------------------------------------------------------------------

CODES = ["InvalidTransition", "BudgetExceeded", "SessionLocked"]

ERROR_PROPERTIES = {
    "from": {"type": "string", "description": "InvalidTransition: the session's state."},
    "to": {"type": "string", "description": "InvalidTransition: the state asked for."},
    "allowed": {"type": "array", "items": {"type": "string"},
                "description": "InvalidTransition: the states `from` may move to (empty when final)."},
    "owner": {"type": "string", "description": "SessionLocked: the device holding the session's lease."},
    "expiresAt": {"type": "string", "description": "SessionLocked: when that lease expires unless renewed."},
    "id": {"type": "string", "description": "Session and queue errors: the session or item concerned."},
    "toolCallId": {"type": "string", "description": "The tool call concerned."},
    "error": {"description": "BudgetExceeded: the session's error ({code, message, exceeded, usage, limits})."},
}

STORAGE_RULES = {"NotDownloaded", "InsufficientSpace"}  # schema/patch_storage.py's
ERROR_REQUIRED = {"InvalidTransition": ["from", "to", "allowed"], "SessionLocked": ["owner", "expiresAt"]}


def patch_errors(doc: dict) -> None:
    ed = doc["components"]["schemas"]["ErrorData"]
    add_domain_codes(ed, CODES, "NotDownloaded")
    props = ed["properties"]
    for name, schema in ERROR_PROPERTIES.items():
        props[name] = schema
    rules = [r for r in ed.get("allOf", []) if rule_code(r) not in ERROR_REQUIRED]
    # Ours go before the storage script's rules, which that script re-appends at the end: so the
    # two scripts give the same file whichever runs last.
    at = next((i for i, r in enumerate(rules) if rule_code(r) in STORAGE_RULES), len(rules))
    rules[at:at] = [required_rule(code, required) for code, required in ERROR_REQUIRED.items()]
    ed["allOf"] = rules


def patch_schemas(doc: dict) -> None:
    schemas = doc["components"]["schemas"]
    for name, schema in SCHEMAS.items():
        schemas[name] = json.loads(json.dumps(schema))


def patch_methods(doc: dict) -> None:
    place_methods(doc["methods"], METHODS, "downloadFile")
    place_methods(doc["methods"], NOTIFICATIONS, "workspace/didChangeFiles")


def main(argv: list[str]) -> int:
    path = rewrite(argv, SCHEMA, patch_schemas, patch_errors, patch_methods)
    print(f"{path}: agent methods {', '.join(m['name'] for m in METHODS)}; notifications "
          f"{', '.join(m['name'] for m in NOTIFICATIONS)}; codes {', '.join(CODES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
