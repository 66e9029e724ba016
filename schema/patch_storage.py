#!/usr/bin/env python3
"""Adds (or replaces) the storage methods and error codes in schema/openrpc.json.

docs/protocol.md, "Storage: local and cloud roots", is the contract described here:
getStorageInfo, chooseStorage, migrate, listConflicts, resolveConflict, downloadFile, the
component schemas their results use, and the domain codes CloudUnavailable, InsufficientSpace
(data.needed, data.free) and NotDownloaded (data.retryAfterMs), all sent with -32803.

Idempotent: running it twice gives the same file. Everything else in the document is left as
it is. Written back with json.dump(indent=2, ensure_ascii=False) and a trailing newline.

    python3 schema/patch_storage.py [path/to/openrpc.json]
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from schema_patching import (  # noqa: E402
    STANDARD_ERRORS, add_domain_codes, example, param, place_methods, ref, required_rule, rewrite, rule_code,
)

SCHEMA = Path(__file__).resolve().parent / "openrpc.json"


# -- component schemas -----------------------------------------------------------

INFO_EXAMPLE = {
    "storageType": "cloud", "isCloudEnabled": True, "isCloudAvailable": True, "isInitialized": True,
    "needsChoice": False, "cloudProvider": "syncthing",
    "roots": {"local": "/home/me/.local/share/workspace-bridge/default", "cloud": "/home/me/Sync/workspace"},
    "usage": {"files": 42, "bytes": 123456}, "freeBytes": 52428800000, "pendingMigration": None,
}

SCHEMAS = {
    "StorageLocation": {
        "description": "Which root file methods act on.",
        "type": "string",
        "enum": ["local", "cloud"],
    },
    "CloudProvider": {
        "description": "The sync engine detected from the cloud root's markers: icloud (the iCloud Drive container), "
                       "syncthing (.stfolder), nextcloud (.sync_*.db), dropbox (.dropbox), unison (.unison), "
                       "rclone (.rclone-bisync or RCLONE_TEST), else folder.",
        "type": "string",
        "enum": ["icloud", "syncthing", "nextcloud", "dropbox", "unison", "rclone", "folder"],
    },
    "PendingMigration": {
        "description": "A migration that started and has not finished (cancelled, failed or killed); the next "
                       "migrate with the same `to` and `mode` resumes it.",
        "type": "object",
        "properties": {
            "to": ref("StorageLocation"),
            "mode": {"type": "string", "enum": ["copy", "move"]},
            "startedAt": ref("Timestamp"),
            "filesTotal": {"type": "integer", "minimum": 0},
            "filesDone": {"type": "integer", "minimum": 0},
        },
        "required": ["to", "mode", "startedAt", "filesTotal", "filesDone"],
        "additionalProperties": False,
    },
    "StorageInfo": {
        "description": "Where the workspace is and how full it is (getStorageInfo, chooseStorage).",
        "type": "object",
        "properties": {
            "storageType": {"description": "The active root.", **ref("StorageLocation")},
            "isCloudEnabled": {"type": "boolean", "description": "A cloud root is configured (--cloud-root, "
                               "initializationOptions.cloudRoot, or the iCloud container)."},
            "isCloudAvailable": {"type": "boolean", "description": "The cloud root is configured and there now "
                                 "(false when missing or unmounted)."},
            "isInitialized": {"type": "boolean", "description": "A choice was made (decideLater does not count)."},
            "needsChoice": {"type": "boolean", "description": "The first-run choice is still to be made."},
            "cloudProvider": {"description": "null without a cloud root.",
                              "oneOf": [ref("CloudProvider"), {"type": "null"}]},
            "roots": {
                "type": "object",
                "properties": {
                    "local": {"type": "string", "description": "Absolute path of the local root."},
                    "cloud": {"type": ["string", "null"], "description": "Absolute path of the cloud root, or null."},
                },
                "required": ["local", "cloud"],
                "additionalProperties": False,
            },
            "usage": {
                "description": "Files and bytes in the active root (kept current by a watcher).",
                "type": "object",
                "properties": {"files": {"type": "integer", "minimum": 0}, "bytes": ref("ByteCount")},
                "required": ["files", "bytes"],
                "additionalProperties": False,
            },
            "freeBytes": {"description": "Free space of the active root's file system.", **ref("ByteCount")},
            "pendingMigration": {"oneOf": [ref("PendingMigration"), {"type": "null"}]},
        },
        "required": ["storageType", "isCloudEnabled", "isCloudAvailable", "isInitialized", "needsChoice",
                     "cloudProvider", "roots", "usage", "freeBytes", "pendingMigration"],
        "additionalProperties": False,
    },
    "MigrateResult": {
        "type": "object",
        "properties": {
            "copied": {"type": "integer", "minimum": 0, "description": "Files copied (dryRun: that would be)."},
            "skipped": {"type": "integer", "minimum": 0,
                        "description": "Files not copied: identical on both sides, or onConflict skip."},
            "conflicts": {"type": "integer", "minimum": 0,
                          "description": "Files that exist on both sides with different content."},
            "bytes": {"description": "Bytes copied (dryRun: that would be).", **ref("ByteCount")},
            "verified": {"type": "integer", "minimum": 0,
                         "description": "Files whose copy was read back and checked against the source."},
            "durationMs": {"type": "integer", "minimum": 0},
            "switched": {"type": "boolean", "description": "The storage choice switched to `to` (false for dryRun)."},
            "resumed": {"type": "boolean", "description": "An interrupted migration was continued."},
            "notDownloaded": {"type": "array", "items": ref("WorkspacePath"),
                              "description": "Placeholders (content not on this machine): not migrated."},
            "renamed": {
                "type": "array",
                "description": "keepBoth conflicts: where each incoming file was placed instead "
                               "(`x (from local).txt`).",
                "items": {
                    "type": "object",
                    "properties": {"from": ref("WorkspacePath"), "to": ref("WorkspacePath")},
                    "required": ["from", "to"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["copied", "skipped", "conflicts", "bytes", "verified", "durationMs", "switched", "resumed",
                     "notDownloaded", "renamed"],
        "additionalProperties": False,
    },
    "ConflictCopy": {
        "type": "object",
        "properties": {
            "path": {"description": "The copy's path (a name no listing shows).", **ref("WorkspacePath")},
            "size": ref("ByteCount"),
            "modified": ref("Timestamp"),
            "device": {"type": "string",
                       "description": "The device (or user) the engine records in the name, when it does."},
        },
        "required": ["path", "size", "modified"],
        "additionalProperties": False,
    },
    "Conflict": {
        "type": "object",
        "properties": {
            "path": {"description": "The original (listed with state conflicted).", **ref("WorkspacePath")},
            "copies": {"type": "array", "minItems": 1, "items": ref("ConflictCopy")},
        },
        "required": ["path", "copies"],
        "additionalProperties": False,
    },
    "ConflictList": {
        "type": "object",
        "properties": {"conflicts": {"type": "array", "items": ref("Conflict")}},
        "required": ["conflicts"],
        "additionalProperties": False,
    },
    "ResolveResult": {
        "description": "The file after the conflict was settled.",
        "type": "object",
        "properties": {
            "path": ref("WorkspacePath"),
            "state": ref("FileState"),
            "size": ref("ByteCount"),
            "etag": ref("Etag"),
            "modified": ref("Timestamp"),
        },
        "required": ["path", "state", "size", "etag", "modified"],
        "additionalProperties": False,
    },
}

FILE_STATE_DESCRIPTION = ("`current`: the content is here. `notDownloaded`: a sync engine's placeholder (iCloud "
                          "`.name.icloud`, Nextcloud `name.nextcloud`, a dataless file), listed under the real name "
                          "with the real size when the engine records it; loadFile answers NotDownloaded. "
                          "`conflicted`: the file has conflict copies (see listConflicts).")

# -- methods --------------------------------------------------------------------

METHODS = [
    {
        "name": "getStorageInfo",
        "summary": "Where the workspace is (local or cloud), whether the cloud root is there, the first-run "
                   "state, the detected sync engine, usage and free space, and any unfinished migration.",
        "description": "usage is kept current by a watcher on the active root (the first call walks it once). "
                       "freeBytes is the active root's file system's free space.",
        "paramStructure": "by-name",
        "params": [],
        "result": {"name": "StorageInfo", "schema": ref("StorageInfo")},
        "errors": STANDARD_ERRORS,
        "examples": [example("info", {}, INFO_EXAMPLE)],
    },
    {
        "name": "chooseStorage",
        "summary": "Makes the per-machine storage choice (persisted in the configuration folder, never inside a "
                   "synced root); answers like getStorageInfo.",
        "description": "cloud needs an available cloud root (CloudUnavailable otherwise). decideLater uses local "
                       "and keeps needsChoice true. Waits for every earlier request and holds later ones back. "
                       "Moves no files (see migrate).",
        "paramStructure": "by-name",
        "params": [param("location", {"type": "string", "enum": ["local", "cloud", "decideLater"]}, required=True)],
        "result": {"name": "StorageInfo", "schema": ref("StorageInfo")},
        "errors": STANDARD_ERRORS,
        "examples": [example("choose the cloud", {"location": "cloud"}, INFO_EXAMPLE)],
    },
    {
        "name": "migrate",
        "summary": "Copies or moves every file of the active root to the other one, verified (SHA-256) and "
                   "resumable; switches the storage choice once, at the end.",
        "description": "A manifest of the source, a free-space check (InsufficientSpace with data.needed and "
                       "data.free), then per file: staging inside the target (.wb-staging.nosync), fsync, re-hash, "
                       "rename into place, a journal record, and in move mode deleting the source file. Folders "
                       "(also empty ones) are recreated. Identical files are skipped; different content is a "
                       "conflict handled per onConflict (fail: AlreadyExists with data.conflicts before anything is "
                       "written). Placeholders are listed in notDownloaded. $/cancelRequest: -32800, no partial file "
                       "visible, choice unchanged, getStorageInfo shows pendingMigration; the next migrate with the "
                       "same to and mode resumes. Migrating to the active root with nothing pending: "
                       "InvalidArgument. Waits for every earlier request and holds later ones back.",
        "paramStructure": "by-name",
        "params": [
            param("to", ref("StorageLocation"), required=True),
            param("mode", {"type": "string", "enum": ["copy", "move"], "default": "copy"},
                  description="move deletes each source file once its copy is verified."),
            param("onConflict", {"type": "string", "enum": ["keepBoth", "skip", "overwrite", "fail"],
                                 "default": "keepBoth"},
                  description="A file on both sides with different content: keepBoth places the incoming one as "
                              "`x (from local).txt` (or `from cloud`)."),
            param("dryRun", {"type": "boolean", "default": False}, description="Report without writing."),
            param("workDoneToken", ref("ProgressToken"), description="Report $/progress (files and bytes done)."),
        ],
        "result": {"name": "MigrateResult", "schema": ref("MigrateResult")},
        "errors": STANDARD_ERRORS,
        "examples": [example("move to the cloud", {"to": "cloud", "mode": "move", "workDoneToken": "m1"}, {
            "copied": 40, "skipped": 2, "conflicts": 1, "bytes": 123456, "verified": 40, "durationMs": 812,
            "switched": True, "resumed": False, "notDownloaded": ["Research/big.pdf"],
            "renamed": [{"from": "context.md", "to": "context (from local).md"}]})],
    },
    {
        "name": "listConflicts",
        "summary": "Every file under `path` that has sync-engine conflict copies, with its copies.",
        "description": "Recognised: Syncthing `x.sync-conflict-YYYYMMDD-HHMMSS-DEVICE.txt`, Nextcloud "
                       "`x (conflicted copy [USER ]YYYY-MM-DD HHMMSS).txt`, Dropbox `x (NAME's conflicted copy "
                       "YYYY-MM-DD).txt`, Unison `x (conflict_on_YYYY-MM-DD).txt`, rclone bisync `x.txt..path1` "
                       "and `x.txt.conflict1`.",
        "paramStructure": "by-name",
        "params": [param("path", ref("WorkspacePath"), description="A folder; default \"\" (the root).")],
        "result": {"name": "ConflictList", "schema": ref("ConflictList")},
        "errors": STANDARD_ERRORS,
        "examples": [example("list", {"path": ""}, {"conflicts": [{"path": "notes.txt", "copies": [
            {"path": "notes.sync-conflict-20251122-101010-ABCDEFG.txt", "size": 12,
             "modified": "2025-11-22T10:10:10.000Z", "device": "ABCDEFG"}]}]})],
    },
    {
        "name": "resolveConflict",
        "summary": "Settles a conflict: keep the current file (the copies are deleted), a copy (it replaces the "
                   "file atomically), both (the copies become ordinary files `x (conflict).txt`), or save "
                   "mergedData crash-safely and delete the copies.",
        "description": "A file without conflict copies → NotFound. keep copy with several copies needs copyPath "
                       "(InvalidArgument otherwise); a copyPath that is not a copy of the file → NotFound.",
        "paramStructure": "by-name",
        "params": [
            param("path", ref("WorkspacePath"), required=True, description="The original."),
            param("keep", {"type": "string", "enum": ["current", "copy", "both"]},
                  description="Required unless mergedData is given."),
            param("copyPath", ref("WorkspacePath"), description="With keep copy: which copy (needed when several)."),
            param("mergedData", {"type": "string"}, description="The merged content, in `encoding`."),
            param("encoding", ref("FileEncoding")),
        ],
        "result": {"name": "ResolveResult", "schema": ref("ResolveResult")},
        "errors": STANDARD_ERRORS,
        "examples": [example("keep the copy", {"path": "notes.txt", "keep": "copy"}, {
            "path": "notes.txt", "state": "current", "size": 12, "etag": "a3f1c2d4e5b60718",
            "modified": "2025-11-22T10:10:10.000Z"})],
    },
    {
        "name": "downloadFile",
        "summary": "Waits until a placeholder's content is on this machine (on macOS it starts the download).",
        "description": "Answers at once for a file that is already here. Still not downloaded after timeoutMs → "
                       "NotDownloaded (data.retryAfterMs). Honours $/cancelRequest.",
        "paramStructure": "by-name",
        "params": [
            param("path", ref("WorkspacePath"), required=True),
            param("timeoutMs", {"type": "integer", "minimum": 0, "maximum": 3600000, "default": 30000}),
            param("workDoneToken", ref("ProgressToken")),
        ],
        "result": {"name": "WriteResult", "schema": ref("WriteResult")},
        "errors": STANDARD_ERRORS,
        "examples": [example("download", {"path": "Research/big.pdf", "timeoutMs": 60000}, {
            "path": "Research/big.pdf", "size": 2097152, "etag": "0b9c8d7e6f5a4b3c",
            "modified": "2025-11-22T11:20:00.123Z"})],
    },
]

# -- error codes ------------------------------------------------------------------

NEW_CODES = ["CloudUnavailable", "InsufficientSpace", "NotDownloaded"]

ERROR_PROPERTIES = {
    "retryAfterMs": {"type": "integer", "minimum": 0,
                     "description": "NotDownloaded: when to ask again, in milliseconds."},
    "needed": {"type": "integer", "minimum": 0, "description": "InsufficientSpace: bytes the migration needs."},
    "free": {"type": "integer", "minimum": 0, "description": "InsufficientSpace: bytes free on the target."},
    "conflicts": {"type": "integer", "minimum": 0,
                  "description": "AlreadyExists from migrate with onConflict fail: how many files conflict."},
}

ERROR_REQUIRED = {"NotDownloaded": ["retryAfterMs"], "InsufficientSpace": ["needed", "free"]}


def patch_errors(doc: dict) -> None:
    ed = doc["components"]["schemas"]["ErrorData"]
    add_domain_codes(ed, NEW_CODES, "ReadOnly")
    props = ed["properties"]
    for name, schema in ERROR_PROPERTIES.items():
        props[name] = schema
    rules = [r for r in ed.get("allOf", []) if rule_code(r) not in ERROR_REQUIRED]
    rules += [required_rule(code, required) for code, required in ERROR_REQUIRED.items()]
    ed["allOf"] = rules


def patch_schemas(doc: dict) -> None:
    schemas = doc["components"]["schemas"]
    for name, schema in SCHEMAS.items():
        schemas[name] = schema
    if "FileState" in schemas:
        schemas["FileState"]["description"] = FILE_STATE_DESCRIPTION


def patch_methods(doc: dict) -> None:
    place_methods(doc["methods"], METHODS, "exportFile")


def main(argv: list[str]) -> int:
    path = rewrite(argv, SCHEMA, patch_schemas, patch_errors, patch_methods)
    print(f"{path}: storage methods {', '.join(m['name'] for m in METHODS)}; codes {', '.join(NEW_CODES)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
