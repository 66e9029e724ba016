"""Generated from schema/openrpc.json by clients/python/scripts/generate_types.py: do not edit."""
from __future__ import annotations

from typing import Any, Dict, List, Literal, TypedDict, Union


#: A JSON-RPC request id: an integer (any 64-bit value, echoed exactly) or a string.
RequestId = Union[int, str]


#: A work-done progress token chosen by the client.
ProgressToken = Union[int, str]


#: How much the server traces to the client: `off` nothing; `messages` its log records as
#: window/logMessage and one $/logTrace per handled message; `verbose` the same, with $/logTrace's
#: `verbose` field.
TraceValue = Literal['off', 'messages', 'verbose']


LogLevel = Literal['trace', 'debug', 'info', 'notice', 'warning', 'error', 'critical']


#: 1 error, 2 warning, 3 info, 4 log/debug.
MessageType = Literal[1, 2, 3, 4]


class _ClientInfoRequired(TypedDict):
    name: str


class ClientInfo(_ClientInfoRequired, total=False):
    version: str


class ClientCapabilitiesWorkspace(TypedDict, total=False):
    didChangeFiles: bool
    #: LSP 3.18 TextDocumentContentClientCapabilities ({dynamicRegistration?}): its presence asks
    #: for refresh requests.
    textDocumentContent: Dict[str, Any]


class ClientCapabilities(TypedDict, total=False):
    """
    Client capabilities. `workspace.didChangeFiles: true` asks for workspace/didChangeFiles
    notifications; `workspace.textDocumentContent` (LSP 3.18, any object) lets the server send
    workspace/textDocumentContent/refresh requests for the wsb: documents the client read; anything
    else is accepted as given.
    """
    workspace: ClientCapabilitiesWorkspace


class ServerInfo(TypedDict):
    name: Literal['workspace-bridge']
    #: The same text `workspace-bridge --version` prints.
    version: str


MethodNameList = List[str]


class ServerCapabilitiesNotifications(TypedDict):
    #: Notifications the server accepts from the client.
    client: MethodNameList
    #: Notifications the server sends.
    server: MethodNameList


#: An absolute path on the host (not workspace-relative).
HostPath = str


class ServerCapabilitiesWorkspaceTextDocumentContent(TypedDict):
    """
    LSP 3.18: the server provides read-only documents of these URI schemes through
    workspace/textDocumentContent (`wsb`).
    """
    schemes: List[str]


class _ServerCapabilitiesWorkspaceRequired(TypedDict):
    #: The workspace root's absolute path.
    root: HostPath
    #: Whether the server sends workspace/didChangeFiles.
    didChangeFiles: bool


class ServerCapabilitiesWorkspace(_ServerCapabilitiesWorkspaceRequired, total=False):
    """The workspace this server serves."""
    #: LSP 3.18: the server provides read-only documents of these URI schemes through
    #: workspace/textDocumentContent (`wsb`).
    textDocumentContent: ServerCapabilitiesWorkspaceTextDocumentContent


class ServerCapabilitiesExecuteCommandProvider(TypedDict):
    """
    LSP: the commands workspace/executeCommand runs: `wsb.METHOD` for each custom request METHOD of
    the method table (arguments: [its params]).
    """
    commands: List[str]


class _ServerCapabilitiesRequired(TypedDict):
    #: Every request method the server offers (the debug/* ones only with --enable-debug-methods).
    methods: MethodNameList
    notifications: ServerCapabilitiesNotifications


class ServerCapabilities(_ServerCapabilitiesRequired, total=False):
    #: The framings the server reads: lsp and ndjson.
    framings: List[Literal['lsp', 'ndjson']]
    #: Whether JSON-RPC batches are accepted.
    batches: bool
    #: The most members one batch may have (1000); a larger batch is refused whole, -32600
    #: BatchTooLarge.
    maxBatchMembers: int
    #: The most bytes of one batch's text (4194304); a larger batch is refused whole before it is
    #: parsed, -32600 BatchTooLarge. A batch's answer is kept within maxMessageBytes.
    maxBatchBytes: int
    #: Whether $/cancelRequest is honoured.
    cancellation: bool
    #: Whether requests carrying workDoneToken report $/progress.
    workDoneProgress: bool
    #: The --max-message-bytes in force.
    maxMessageBytes: int
    #: The workspace this server serves.
    workspace: ServerCapabilitiesWorkspace
    #: LSP: the commands workspace/executeCommand runs: `wsb.METHOD` for each custom request METHOD
    #: of the method table (arguments: [its params]).
    executeCommandProvider: ServerCapabilitiesExecuteCommandProvider


class InitializeResult(TypedDict):
    serverInfo: ServerInfo
    protocolVersion: str
    capabilities: ServerCapabilities


class Empty(TypedDict):
    pass


Percentage = int


class _WorkDoneProgressBeginRequired(TypedDict):
    kind: Literal['begin']
    title: str
    cancellable: bool


class WorkDoneProgressBegin(_WorkDoneProgressBeginRequired, total=False):
    message: str
    percentage: Percentage


class _WorkDoneProgressReportRequired(TypedDict):
    kind: Literal['report']


class WorkDoneProgressReport(_WorkDoneProgressReportRequired, total=False):
    message: str
    percentage: Percentage


class _WorkDoneProgressEndRequired(TypedDict):
    kind: Literal['end']


class WorkDoneProgressEnd(_WorkDoneProgressEndRequired, total=False):
    message: str


ProgressValue = Union[WorkDoneProgressBegin, WorkDoneProgressReport, WorkDoneProgressEnd]


class EchoResult(TypedDict):
    #: The value sent, unchanged.
    value: Any


class SleepResult(TypedDict):
    #: The label sent (empty or null when none was sent).
    label: Union[str, None]
    #: Monotonic clock, nanoseconds, when the sleep began.
    startedAt: int
    #: Monotonic clock, nanoseconds, when the sleep ended.
    finishedAt: int


class BlobResult(TypedDict):
    #: Text of exactly the requested number of UTF-8 bytes.
    data: str


ErrorCode = Literal[
    'ParseError',
    'InvalidHeader',
    'UnsupportedCharset',
    'InvalidRequest',
    'MessageTooLarge',
    'DuplicateRequestId',
    'AlreadyInitialized',
    'ShutdownRequested',
    'BatchTooLarge',
    'MethodNotFound',
    'InvalidParams',
    'InternalError',
    'ServerNotInitialized',
    'RequestCancelled',
    'UnsupportedProtocolVersion',
    'MissingRequiredClientCapability',
    'ServerBusy',
    'CapabilityDenied',
    'NotFound',
    'AlreadyExists',
    'NotADirectory',
    'IsADirectory',
    'DirectoryNotEmpty',
    'OutsideWorkspace',
    'InvalidPath',
    'PreconditionFailed',
    'NotText',
    'TooLarge',
    'PermissionDenied',
    'NoSpace',
    'ReadOnly',
    'CloudUnavailable',
    'InsufficientSpace',
    'NotDownloaded',
    'InvalidTransition',
    'BudgetExceeded',
    'SessionLocked',
    'SymlinkNotFollowed',
    'NotARegularFile',
    'InvalidArgument',
    'QuotaExceeded',
    'IOError',
    'Deferred',
    'LimitExceeded',
    'AgentUnavailable',
]


_ErrorDataRequired = TypedDict("_ErrorDataRequired", {
    'code': ErrorCode,
})


_ErrorDataOptional = TypedDict("_ErrorDataOptional", {
    # ParseError: what the JSON parser reported. Deferred: why the device policy deferred the work
    # (offline, expensiveNetwork, constrainedNetwork, lowBattery, thermal). InvalidArgument from
    # session/import: damaged, foreign or unsupportedVersion. BatchTooLarge: members (more than
    # data.limit members: the batch was refused whole, answered with id null), bytes (its text is
    # over data.limit bytes: refused whole before parsing, id null) or answerBytes (this member only
    # reads and its result would take the batch's answer past data.limit bytes, the --max-message-
    # bytes: send it on its own). ServerBusy: stuckHandlers (every worker thread is taken and
    # data.limit cancelled requests are still stuck in system calls), threadLimit (the system
    # refused a new thread, data.errno) or pendingRequests (the ACP face: data.limit requests
    # already wait for the other side's answers); nothing was done, send the request again later.
    # AgentUnavailable: how the agent ended (exited with status N, killed by signal N) or why it
    # could not start. LimitExceeded (session/search, searchFiles): queryBytes (the query is over
    # data.limit bytes, 1024), matchLimit (the regular expression reached its engine's bound of
    # backtracking steps or memory at one place, e.g. (a+)+b: data.line is the line of the file for
    # searchFiles) or time (the search ran over its timeLimitMs, data.limit). InvalidArgument from
    # session/search: badPattern (the regular expression does not compile) or cursorMismatch (the
    # cursor was made by a search with another query or filters).
    'reason': str,
    # ParseError: line of the error in the message. LimitExceeded (matchLimit, searchFiles): the
    # line of the file where the regular expression reached its bound.
    'line': int,
    # ParseError: column of the error in the message.
    'column': int,
    # ParseError: byte offset of the error in the message.
    'position': int,
    # ParseError: a machine-readable class of the parse failure (e.g. prematureEnd).
    'kind': str,
    # MessageTooLarge: the --max-message-bytes in force. TooLarge: the most bytes one call may
    # return or take (65536 for message or session metadata). QuotaExceeded: the limit (1024 keys or
    # 1048576 bytes); InvalidArgument from settings/*: 64 (bytes of a key). BatchTooLarge: the most
    # members (1000), bytes of a batch's text (4194304) or bytes of a batch's answer (--max-message-
    # bytes), after data.reason. ServerBusy (stuckHandlers): how many cancelled stuck requests are
    # set aside at most (64). LimitExceeded: the bound passed (bytes of a query, or milliseconds of
    # a search).
    'limit': int,
    # MessageTooLarge: the message's size in bytes, when known. TooLarge: the size of the file (or
    # of the range asked for; of the metadata, encoded). QuotaExceeded: the keys or bytes the
    # settings would hold after the change; InvalidArgument from settings/*: the key's bytes.
    # BatchTooLarge: the batch's members (reason members) or bytes (reason bytes). LimitExceeded
    # (queryBytes): the query's bytes.
    'size': int,
    # MethodNotFound: the method asked for. CapabilityDenied: the method (or tool) refused.
    'method': str,
    # InvalidParams: dotted path of the offending field. InvalidArgument (damaged) from
    # session/import: the member of the file at fault, when one is (session.state,
    # session.usage.turns, session.config, messages.id, toolCalls.id, compactions.id, a top-level
    # member twice).
    'field': str,
    # InvalidParams: what was expected there.
    'expected': str,
    # InvalidParams: the JSON type that was found instead.
    'got': str,
    # UnsupportedCharset: the charset the header named.
    'charset': str,
    # Domain errors: the workspace-relative path concerned (as sent, or normalized), when there is
    # one.
    'path': str,
    # PreconditionFailed: the file's etag now, or null when it does not exist.
    'currentEtag': Union[str, None],
    # IOError: the errno the system call failed with. ServerBusy (threadLimit): pthread_create's
    # error (EAGAIN at a task limit).
    'errno': int,
    # NotDownloaded: when to ask again, in milliseconds.
    'retryAfterMs': int,
    # InsufficientSpace: bytes the migration needs.
    'needed': int,
    # InsufficientSpace: bytes free on the target.
    'free': int,
    # AlreadyExists from migrate with onConflict fail: how many files conflict.
    'conflicts': int,
    # InvalidTransition: the session's state.
    'from': str,
    # InvalidTransition: the state asked for.
    'to': str,
    # InvalidTransition: the states `from` may move to (empty when final).
    'allowed': List[str],
    # SessionLocked: the device holding the session's lease.
    'owner': str,
    # SessionLocked: when that lease expires unless renewed.
    'expiresAt': str,
    # Session and queue errors: the session or item concerned. InvalidArgument (damaged) from
    # session/import: the message, tool call or compaction id that occurs twice.
    'id': str,
    # The tool call concerned.
    'toolCallId': str,
    # BudgetExceeded: the session's error ({code, message, exceeded, usage, limits}).
    'error': Any,
    # QuotaExceeded: which synced-settings limit the change would break.
    'quota': Literal['keys', 'bytes'],
    # InvalidArgument from settings/*: the key refused.
    'key': str,
    # NotARegularFile: what the entry is (a named pipe, a Unix socket, a character or block device).
    # Its bytes are never read or written; the answer comes at once, never after waiting on the
    # entry.
    'type': Literal['fifo', 'socket', 'charDevice', 'blockDevice', 'other'],
    # UnsupportedProtocolVersion (MCP face only): every MCP protocol version this binary serves,
    # both eras, newest first.
    'supported': List[str],
    # UnsupportedProtocolVersion: the version the request asked for.
    'requested': str,
    # Deferred: whether the call was recorded to run later (session/get deferredToolCalls; send it
    # again when the conditions allow).
    'queued': bool,
    # Deferred: whether the same call with userConfirmed true would run now (false only offline).
    'confirmable': bool,
    # MissingRequiredClientCapability (MCP face only): the client capabilities the request needs,
    # e.g. {"extensions": {"io.modelcontextprotocol/tasks": {}}}.
    'requiredCapabilities': Dict[str, Any],
    # CapabilityDenied: the capabilities the method needs (its x-capabilities) that this server was
    # not granted.
    'capabilities': List[Literal['workspace', 'storage', 'settings', 'device', 'host-paths', 'debugging', 'lifecycle']],
    # CapabilityDenied: the method that forwarded the refused call (workspace/executeCommand,
    # session/callTool, MCP tools/call); data.method is then the method or tool it named.
    'through': str,
}, total=False)


class ErrorData(_ErrorDataRequired, _ErrorDataOptional):
    """
    error.data of every error response. `code` is the stable, machine-readable reason; x-error-codes
    maps each value to the JSON-RPC error.code it is sent with (domain codes, ServerBusy and
    CapabilityDenied: -32803); CapabilityDenied: the method, or the method a command or tool call
    forwards to, needs a capability (x-capabilities) this server was not granted (`serve --deny`);
    data.method names it, data.capabilities the ones missing, data.through the forwarding method;
    UnsupportedProtocolVersion: -32022, sent only on the MCP face to a 2026-07-28-era request whose
    `_meta` names a version this binary does not serve (docs/mcp-2026.md);
    MissingRequiredClientCapability: -32021, sent only on the MCP face to a 2026-07-28-era request
    that needs an extension its `_meta` did not declare (the tasks extension's tasks/*).
    AgentUnavailable: -32603, sent only by the ACP face (workspace-bridge acp) to a request the
    downstream agent did not answer because it exited or could not be started; data.method names the
    request.
    """


#: A workspace-relative, '/'-separated path; "" is the root. Empty and '.' segments are ignored.
#: Refused (-32803): absolute paths, drive letters, '..' segments and a leading '~'
#: (OutsideWorkspace); NUL bytes, a backslash other than in an escaped byte, names over 255 bytes,
#: paths over 4096 bytes (counted on disk), percent-encoded separators or dot segments, the server's
#: temp-file names (InvalidPath); anything under .workspace/ or .wb-staging.nosync/ in any spelling
#: a volume could fold to them (case, Unicode normalisation, ignorable code points, trailing dots or
#: spaces, FAT short names such as WORKSP~1: PermissionDenied); anything that is or passes through a
#: symbolic link (SymlinkNotFollowed). Results carry the normalized path. Names are text: a name's
#: bytes that are not UTF-8, and a backslash, are written \x and two lowercase hex digits
#: (caf\xe9.txt, a\x5cb); so is each '%' of a name whose percent-decoding would be refused (a\x252Fb
#: for a%2Fb); listings, search results and notifications use that form and every method accepts it
#: back; any other spelling of an escape (uppercase digits, an escaped UTF-8 or ASCII byte) is
#: InvalidPath.
WorkspacePath = str


#: 16 hex digits derived from device, inode, size and modification time (ns). Every save makes a new
#: inode, so it changes on every write.
Etag = str


#: ISO 8601 UTC with milliseconds, e.g. 2025-11-22T11:20:00.123Z.
Timestamp = str


#: How `data` is carried: utf8 text, or base64 (RFC 4648, with padding) for any bytes.
FileEncoding = Literal['utf8', 'base64']


#: What an entry is, without following links: a symbolic link is `symlink` with the link's own facts
#: only. `fifo` (named pipe), `socket`, `charDevice` and `blockDevice` are listed but their bytes
#: are never read or written (NotARegularFile); `other` is any other kind the system has.
EntryType = Literal[
    'file',
    'directory',
    'symlink',
    'fifo',
    'socket',
    'charDevice',
    'blockDevice',
    'other',
]


class SkippedEntry(TypedDict):
    """
    An entry a folder copy or a migration left where it was: a FIFO, socket or device
    (NotARegularFile: its bytes are never read), a symbolic link (SymlinkNotFollowed: never
    followed), or (migrations) a folder that could not be read (type directory; PermissionDenied,
    IOError, or TooLarge for one nested more than 256 levels deep), whose entries all stay where
    they are, or an entry at the root only spelled like a reserved folder (PermissionDenied; see
    WorkspacePath). Every one is reported; a move never deletes it.
    """
    path: WorkspacePath
    type: EntryType
    #: The error code reading the entry would answer.
    reason: Literal['NotARegularFile', 'SymlinkNotFollowed', 'PermissionDenied', 'IOError', 'TooLarge']


#: `current`: the content is here. `notDownloaded`: a sync engine's placeholder (iCloud
#: `.name.icloud`, Nextcloud `name.nextcloud`, a dataless file), listed under the real name with the
#: real size when the engine records it; loadFile answers NotDownloaded. `conflicted`: the file has
#: conflict copies (see listConflicts).
FileState = Literal['current', 'notDownloaded', 'conflicted']


ByteCount = int


class WriteResult(TypedDict):
    """The file as it is after the write."""
    path: WorkspacePath
    #: The file's size in bytes after the write.
    size: ByteCount
    etag: Etag
    modified: Timestamp


class _LoadResultRequired(TypedDict):
    path: WorkspacePath
    #: The bytes read, in `encoding`.
    data: str
    encoding: FileEncoding
    #: The whole file's size in bytes.
    size: ByteCount
    etag: Etag
    modified: Timestamp
    #: The offset the range starts at.
    offset: ByteCount
    #: The number of bytes returned (utf8: may be less than asked, cut back to a whole character).
    length: ByteCount
    #: Whether the window reached the end of the file.
    eof: bool


class LoadResult(_LoadResultRequired, total=False):
    #: Present when the file goes on: the byte the next window starts at (pass it as offset).
    nextOffset: ByteCount
    #: A window asked by line number: the number of its first line.
    startLine: int
    #: A line window: how many lines it holds (a last line without a newline counts).
    lineCount: int
    #: A window asked by line number, when the file goes on: the line the next window starts at
    #: (pass it as startLine).
    nextLine: int


class FileEntry(TypedDict):
    #: Workspace-relative path of the entry.
    path: WorkspacePath
    name: str
    type: EntryType
    #: Bytes (0 for folders; for a link, the link's own size).
    size: ByteCount
    modified: Timestamp
    etag: Etag
    state: FileState


class _ListResultRequired(TypedDict):
    entries: List[FileEntry]


class ListResult(_ListResultRequired, total=False):
    #: Present when more entries follow; pass it back as `cursor`.
    nextCursor: str


class DeleteResult(TypedDict):
    path: WorkspacePath
    deleted: Literal[True]


_TransferResultRequired = TypedDict("_TransferResultRequired", {
    'from': WorkspacePath,
    'to': WorkspacePath,
    'type': EntryType,
    'size': ByteCount,
    'etag': Etag,
    'modified': Timestamp,
})


_TransferResultOptional = TypedDict("_TransferResultOptional", {
    # copyFile only (empty for a file): entries of the copied folder that were not copied (FIFOs,
    # sockets, devices, links), in listing order.
    'skippedEntries': List[SkippedEntry],
}, total=False)


class TransferResult(_TransferResultRequired, _TransferResultOptional):
    """The destination after a move or copy; a copy also says what it left out."""


class CreateFolderResult(TypedDict):
    path: WorkspacePath
    type: Literal['directory']
    modified: Timestamp


class _FileInfoRequired(TypedDict):
    path: WorkspacePath
    #: The last component ("" for the root).
    name: str
    type: EntryType
    size: ByteCount
    modified: Timestamp
    etag: Etag
    #: Permission bits as four octal digits, like `stat -c %04a`.
    mode: str
    state: FileState


class FileInfo(_FileInfoRequired, total=False):
    #: Birth time, when the file system records it.
    created: Timestamp
    #: With hash: "sha256": the content's SHA-256, lowercase hex.
    sha256: str


class SearchMatch(TypedDict):
    path: WorkspacePath
    #: 1-based line number.
    line: int
    #: 1-based position in characters of the first match on the line.
    column: int
    #: The line (at most 1,000 characters).
    text: str


class SearchResult(TypedDict):
    matches: List[SearchMatch]
    #: Whether maxResults cut the search short.
    truncated: bool
    filesSearched: ByteCount
    #: FIFOs, sockets and devices under the path (matching the glob): never opened, not searched.
    specialFilesSkipped: int
    #: Entries left out by ignore files: files, and folders counted once (their contents are not
    #: visited). 0 with includeIgnored.
    ignored: int


class WatchResult(TypedDict):
    watching: bool


class FileUriResult(TypedDict):
    #: A file: URI of the entry on the host.
    uri: str


class ExportResult(TypedDict):
    path: WorkspacePath
    destination: HostPath
    size: ByteCount


class FileChange(TypedDict):
    path: WorkspacePath
    type: Literal['created', 'changed', 'deleted']


#: Which root file methods act on.
StorageLocation = Literal['local', 'cloud']


#: The sync engine detected from the cloud root's markers: icloud (the iCloud Drive container),
#: syncthing (.stfolder), nextcloud (.sync_*.db), dropbox (.dropbox), unison (.unison), rclone
#: (.rclone-bisync or RCLONE_TEST), else folder.
CloudProvider = Literal['icloud', 'syncthing', 'nextcloud', 'dropbox', 'unison', 'rclone', 'folder']


class PendingMigration(TypedDict):
    """
    A migration that started and has not finished (cancelled, failed or killed); the next migrate
    with the same `to` and `mode` resumes it.
    """
    to: StorageLocation
    mode: Literal['copy', 'move']
    startedAt: Timestamp
    filesTotal: int
    filesDone: int


class StorageInfoRoots(TypedDict):
    #: Absolute path of the local root.
    local: str
    #: Absolute path of the cloud root, or null.
    cloud: Union[str, None]


class StorageInfoUsage(TypedDict):
    """Files and bytes in the active root (kept current by a watcher)."""
    files: int
    bytes: ByteCount


class StorageInfoHub(TypedDict):
    """Only with a session hub (--hub, WORKSPACE_BRIDGE_HUB): how replication to it stands."""
    #: The last call to the hub succeeded.
    connected: bool
    #: The hub's schema version (0 before the first connection).
    schemaVersion: int
    #: Session records durable on this machine and not yet committed to the hub.
    outboxRecords: int
    #: Records this process committed to the hub.
    committedRecords: int
    #: Sessions whose records the hub holds differently at some offset (another writer): not sent.
    divergedSessions: int
    #: Why the last call to the hub failed (libpq's message; never a password).
    lastError: Union[str, None]


class _StorageInfoRequired(TypedDict):
    #: The active root.
    storageType: StorageLocation
    #: A cloud root is configured (--cloud-root, initializationOptions.cloudRoot, or the iCloud
    #: container).
    isCloudEnabled: bool
    #: The cloud root is configured and there now (false when missing or unmounted).
    isCloudAvailable: bool
    #: A choice was made (decideLater does not count).
    isInitialized: bool
    #: The first-run choice is still to be made.
    needsChoice: bool
    #: null without a cloud root.
    cloudProvider: Union[CloudProvider, None]
    roots: StorageInfoRoots
    #: Files and bytes in the active root (kept current by a watcher).
    usage: StorageInfoUsage
    #: Free space of the active root's file system.
    freeBytes: ByteCount
    pendingMigration: Union[PendingMigration, None]


class StorageInfo(_StorageInfoRequired, total=False):
    """Where the workspace is and how full it is (getStorageInfo, chooseStorage)."""
    #: Only in chooseStorage's answer: true when `location` already was this machine's choice
    #: (nothing was written), false when the choice changed.
    alreadyActive: bool
    #: Only with a session hub (--hub, WORKSPACE_BRIDGE_HUB): how replication to it stands.
    hub: StorageInfoHub


_MigrateResultRenamedItemRequired = TypedDict("_MigrateResultRenamedItemRequired", {
    'from': WorkspacePath,
    'to': WorkspacePath,
})


class MigrateResultRenamedItem(_MigrateResultRenamedItemRequired):
    pass


class MigrateResult(TypedDict):
    #: Files copied (dryRun: that would be).
    copied: int
    #: Files not copied: identical on both sides, or onConflict skip.
    skipped: int
    #: Files that exist on both sides with different content.
    conflicts: int
    #: Bytes copied (dryRun: that would be).
    bytes: ByteCount
    #: Files whose copy was read back and checked against the source.
    verified: int
    durationMs: int
    #: The storage choice switched to `to` (false for dryRun).
    switched: bool
    #: An interrupted migration was continued.
    resumed: bool
    #: `to` already was the active root and no migration was pending: nothing was copied or switched
    #: (a retry of a migration that finished).
    alreadyActive: bool
    #: Placeholders (content not on this machine): not migrated.
    notDownloaded: List[WorkspacePath]
    #: Links, FIFOs, sockets and devices in the source, folders that could not be read, and entries
    #: spelled like a reserved folder: not migrated. In move mode they stay in the old root (never
    #: deleted) and the roots still switch; each is listed here (dryRun: that would be), so a move
    #: leaves nothing behind unreported. Names that are not UTF-8 are migrated like any other (under
    #: their escaped form, see WorkspacePath).
    skippedEntries: List[SkippedEntry]
    #: keepBoth conflicts: where each incoming file was placed instead (`x (from local).txt`).
    renamed: List[MigrateResultRenamedItem]


class _ConflictCopyRequired(TypedDict):
    #: The copy's path (a name no listing shows).
    path: WorkspacePath
    size: ByteCount
    modified: Timestamp


class ConflictCopy(_ConflictCopyRequired, total=False):
    #: The device (or user) the engine records in the name, when it does.
    device: str


class Conflict(TypedDict):
    #: The original (listed with state conflicted).
    path: WorkspacePath
    copies: List[ConflictCopy]


class ConflictList(TypedDict):
    conflicts: List[Conflict]


class ResolveResult(TypedDict):
    """The file after the conflict was settled."""
    path: WorkspacePath
    state: FileState
    size: ByteCount
    etag: Etag
    modified: Timestamp


#: A session's id, given by the server (e.g. sess_0123456789abcdef).
SessionId = str


#: idle→running; running→waitingForUser|backgrounded|completed|failed;
#: waitingForUser→running|backgrounded; backgrounded→running|completed; completed and failed are
#: final. (Going over a budget moves any non-final state to failed.)
SessionState = Literal['idle', 'running', 'waitingForUser', 'backgrounded', 'completed', 'failed']


#: Model size class, smallest (cheapest) first.
ModelTier = Literal['fast', 'balanced', 'powerful']


class SessionConfig(TypedDict, total=False):
    """
    The model choice and the budget; only the members that are set. A limit is exceeded when usage
    goes over it (reaching it is allowed).
    """
    modelTier: ModelTier
    #: A model name; a price for it in pricing.json wins over the tier's.
    model: str
    maxInputTokens: int
    maxOutputTokens: int
    maxTurns: int
    maxCostUSD: float


class Usage(TypedDict):
    """The sums of every acknowledged recordUsage call."""
    inputTokens: int
    outputTokens: int
    #: recordUsage calls counted.
    turns: int
    #: An estimate from the pricing table (per million tokens).
    estimatedCostUSD: float


class BudgetRemaining(TypedDict, total=False):
    """What is left of each limit the session has (only those), never negative."""
    inputTokens: int
    outputTokens: int
    turns: int
    costUSD: float


class SessionError(TypedDict, total=False):
    """
    Why a failed session failed: the error given with session/transition to failed, or {code:
    BudgetExceeded, message, exceeded, usage, limits} when a budget stopped it.
    """
    code: str
    message: str
    exceeded: List[Literal['maxInputTokens', 'maxOutputTokens', 'maxTurns', 'maxCostUSD']]
    usage: Usage
    limits: SessionConfig


class _ToolCallRecordRequired(TypedDict):
    toolCallId: str
    name: str
    #: The call's arguments as given (an object, or whatever the front end declared).
    arguments: Any
    #: pending: declared by the front end in a checkpoint; running: running in this server (or in
    #: the lease owner's); interrupted: begun before a crash and never finished (call it again with
    #: the same toolCallId).
    status: Literal['pending', 'running', 'interrupted']


class ToolCallRecord(_ToolCallRecordRequired, total=False):
    """A tool call that has no result yet."""
    startedAt: Timestamp


#: A pending tool call as a front end declares it in a checkpoint: {toolCallId | id, name,
#: arguments}, or the OpenAI shape {id, function: {name, arguments}}.
PendingToolCallInput = Any


class _ForkPointRequired(TypedDict):
    parentId: SessionId
    at: Timestamp


class ForkPoint(_ForkPointRequired, total=False):
    """
    Where a fork was cut: the parent, the last message carried over (absent when the parent had
    none), and when.
    """
    messageId: str


class _CompactionRequired(TypedDict):
    id: str
    firstMessageId: str
    throughMessageId: str
    count: int
    by: str
    at: Timestamp
    active: bool
    originalsKept: bool


class Compaction(_CompactionRequired, total=False):
    """
    One compaction of a run of messages: what it replaced (firstMessageId through throughMessageId,
    count messages), who made it (by: the client's name for its author, or retention) and when;
    active until undone (undoneAt); originalsKept false once the retention policy dropped the
    originals (then it cannot be undone).
    """
    undoneAt: Timestamp


class ApprovalPolicy1(TypedDict, total=False):
    tools: List[str]
    annotations: List[Literal['destructive', 'openWorld', 'write']]


#: Which tool calls need the user's consent: none (the default: no consent step), destructive (every
#: call that replaces or removes existing content, whichever tool makes it: copy_file or move_file
#: with overwrite, update_context with mode replace, write_file, delete_file; docs/protocol.md "What
#: each tool call does"), or {tools, annotations}: the tools named, and every call matching one of
#: the annotations (destructive = replaces, write = any change, openWorld = a tool needing the
#: network). The effect is derived from the tool and the call's arguments alone.
ApprovalPolicy = Union[Literal['none', 'destructive'], ApprovalPolicy1]


class _ApprovalRequired(TypedDict):
    approvalId: str
    toolCallId: str
    name: str
    #: The call's arguments as sent.
    arguments: Any
    requestedAt: Timestamp


class Approval(_ApprovalRequired, total=False):
    """A tool call waiting for the user's consent (no decision yet: nothing has run), or decided."""
    decision: Literal['allow', 'deny']
    #: What the call does, which is what the policy asked about (docs/protocol.md, "What each tool
    #: call does"): adds creates or appends only; replaces overwrites, deletes, moves or replaces
    #: existing content; reads changes nothing. Absent for an approval recorded before effects were.
    effect: Literal['reads', 'adds', 'replaces']
    #: Who asked, when not session/callTool: mcp for an MCP client's tools/call (MCP has no tool
    #: call ids). session/approve then only records the decision; the MCP client's identical call
    #: (same tool, same arguments) runs or is refused by it.
    origin: Literal['mcp']


class DeferredToolCall(TypedDict):
    """
    A tool call the device policy deferred (Deferred error with queued true). It stays listed until
    the same session/callTool is sent again and runs (or is closed).
    """
    toolCallId: str
    name: str
    #: The call's arguments as sent.
    arguments: Any
    reason: Literal['offline', 'expensiveNetwork', 'constrainedNetwork', 'lowBattery', 'thermal']
    at: Timestamp


class _SessionRequired(TypedDict):
    id: SessionId
    title: str
    agentType: str
    state: SessionState
    config: SessionConfig
    usage: Usage
    pendingToolCalls: List[ToolCallRecord]
    createdAt: Timestamp
    updatedAt: Timestamp


class Session(_SessionRequired, total=False):
    """An agent session."""
    #: Only when state is failed.
    error: SessionError
    #: As given to session/create (or session/fork), merged by session/update.
    metadata: Any
    #: Forks and child sessions: the session it was forked from, or that it is a child of.
    parentId: SessionId
    #: With parentId: fork (a copy of the parent's history, session/fork) or child (a stream of its
    #: own under the parent, e.g. a subagent's transcript: session/create's parentId).
    parentKind: Literal['fork', 'child']
    #: Forks only: where it was cut.
    forkedAt: ForkPoint
    #: Every compaction, undone ones included (only when there is one).
    compactions: List[Compaction]
    #: Only when not none.
    approvalPolicy: ApprovalPolicy
    #: Tool calls waiting for the user's consent (only when there is one).
    pendingApprovals: List[Approval]
    #: Tool calls the device policy deferred (only when there is one).
    deferredToolCalls: List[DeferredToolCall]
    #: session/get, and session/list with withBytesOnDisk: the bytes the session's folder holds (but
    #: for listing.json, session/list's cache).
    bytesOnDisk: int
    #: Only with a session hub: replicated (every record written here is in the hub, or the session
    #: was fetched from it), pending (records wait in the outbox), diverged (the hub holds other
    #: records at an offset written here: another writer).
    replication: Literal['replicated', 'pending', 'diverged']


class _SessionListRequired(TypedDict):
    sessions: List[Session]


class SessionList(_SessionListRequired, total=False):
    #: Present when more follow: pass it back as cursor.
    nextCursor: str


MessageRole = Literal['user', 'assistant', 'system', 'tool']


class _MessageInputRequired(TypedDict):
    role: MessageRole
    #: The message content (a string or content parts): any JSON.
    content: Any


class MessageInput(_MessageInputRequired, total=False):
    #: A message with an id already stored is not stored again; without one the server gives it one.
    id: str
    #: The assistant's tool calls, in the front end's shape.
    toolCalls: Any
    #: For role tool: the call this answers.
    toolCallId: str
    #: The message's own facts (a JSON object, at most 65,536 bytes encoded: over it → TooLarge),
    #: stored with it, returned by session/messages and matched by its where.metadata.
    metadata: Dict[str, Any]


class _MessageRequired(TypedDict):
    id: str
    role: MessageRole
    #: As appended.
    content: Any
    #: When it was stored.
    at: Timestamp


class Message(_MessageRequired, total=False):
    """A stored message."""
    #: As appended.
    toolCalls: Any
    toolCallId: str
    #: On the entry standing for a compacted run (its id is the compaction's id, its content the
    #: summary): what it replaced.
    compaction: Compaction
    #: With includeCompacted: on an original of a compacted run, the compaction that replaces it.
    compactedBy: str
    #: Only when appended with metadata: as appended.
    metadata: Dict[str, Any]


class _MessageListRequired(TypedDict):
    messages: List[Message]


class MessageList(_MessageListRequired, total=False):
    #: More entries match beyond this page in the direction read (after the last one; with last,
    #: before the first one).
    hasMore: bool
    #: When hasMore on a forward page: pass it as after for the next page.
    nextAfter: str
    #: When hasMore on a page read with last: pass it as before for the page before.
    nextBefore: str


class SessionDeleted(TypedDict):
    id: SessionId
    deleted: Literal[True]


class AppendResult(TypedDict):
    #: How many messages were new (stored now).
    count: int


class _UsageReportRequired(TypedDict):
    usage: Usage
    remaining: BudgetRemaining
    #: The limits now exceeded; when not empty the session was moved to failed (error.code
    #: BudgetExceeded) in the same durable step.
    exceeded: List[Literal['maxInputTokens', 'maxOutputTokens', 'maxTurns', 'maxCostUSD']]


class UsageReport(_UsageReportRequired, total=False):
    #: The model named by the call when the price table (the seeds' claude-3-haiku-20240307,
    #: claude-3-sonnet-20240229, claude-3-opus-20240229 and pricing.json's models) does not know it:
    #: the turn is counted and costs nothing, rather than a guess at money.
    unpricedModel: str


class CheckpointResult(TypedDict):
    checkpointId: str
    at: Timestamp


class Checkpoint(TypedDict):
    """A session's last checkpoint."""
    checkpointId: str
    at: Timestamp
    pendingToolCalls: List[ToolCallRecord]
    #: The partial results of the last checkpoint that carried any, or null.
    partialResults: Any


class ResumeResult(TypedDict):
    session: Session
    #: The last messages (up to 50), oldest first.
    messagesTail: List[Message]
    pendingToolCalls: List[ToolCallRecord]
    #: The partial results of the last checkpoint that carried any, or null.
    partialResults: Any


class _ToolAnnotationsRequired(TypedDict):
    readOnlyHint: bool
    destructiveHint: bool
    idempotentHint: bool
    openWorldHint: bool


class ToolAnnotations(_ToolAnnotationsRequired, total=False):
    """Hints as in MCP."""
    title: str


class ToolDefinition(TypedDict):
    """One tool of the agent tool table."""
    name: str
    title: str
    description: str
    #: A JSON Schema of the arguments.
    inputSchema: Dict[str, Any]
    #: A JSON Schema of structuredContent.
    outputSchema: Dict[str, Any]
    annotations: ToolAnnotations
    requiresNetwork: bool
    #: Heavy work for the device policy (x-tool-heavy on agent/listTools): deferred on a low battery
    #: or a hot device, and, when it needs the network, on an expensive or Low Data network, unless
    #: the call says userConfirmed.
    heavy: bool


class ToolContent(TypedDict):
    type: Literal['text']
    text: str


class ToolResult(TypedDict):
    """The result of one tool call (the shape of MCP tools/call)."""
    #: Text for the model.
    content: List[ToolContent]
    #: The same facts as structured data (the tool's outputSchema); for isError: {error, code?} with
    #: code a data.code of the schema (e.g. OutsideWorkspace), InvalidParams for bad arguments, or
    #: one of the approval step's: ApprovalDenied (the user refused the call; nothing ran) and, on
    #: the MCP face only, ApprovalRequired (the call waits for the user's consent and this client
    #: could not be asked; with approvalId, toolCallId and sessionId: answer it with
    #: session/approve, then the same call again runs or is refused) and Deferred (the device policy
    #: deferred the call and the user could not be asked, declined or cannot help; with reason,
    #: confirmable, queued, toolCallId and sessionId: the call is in session/listDeferred, and the
    #: same call again runs once the conditions allow).
    structuredContent: Dict[str, Any]
    isError: bool


class _ToolReadMultipleFilesInputRequired(TypedDict):
    #: The files, read in this order (at most 100; 16 MiB in all).
    paths: List[WorkspacePath]


class ToolReadMultipleFilesInput(_ToolReadMultipleFilesInputRequired, total=False):
    """read_multiple_files' arguments: the files, and at most one of head or tail (lines)."""
    #: Only each file's first lines. 0: no lines, only the files' facts.
    head: int
    #: Only each file's last lines (not with head). 0: no lines.
    tail: int


class _ToolReadMultipleFilesOutputFilesItemRequired(TypedDict):
    path: WorkspacePath


class ToolReadMultipleFilesOutputFilesItem(_ToolReadMultipleFilesOutputFilesItemRequired, total=False):
    #: The text read (whole, or the head/tail lines).
    data: str
    size: ByteCount
    etag: Etag
    #: With head or tail: how many lines data holds.
    lineCount: int
    #: Whether data reaches the end of the file.
    eof: bool
    #: With head, when the file goes on: the line read_file's startLine continues at.
    nextLine: int
    #: When the file goes on: the byte read_file's offset continues at.
    nextOffset: ByteCount
    #: Why this file was not read (a binary file, not found, over the 16 MiB the call may read...).
    error: str
    #: The error's data.code (NotText, NotFound, TooLarge...).
    code: str


class ToolReadMultipleFilesOutput(TypedDict):
    """
    read_multiple_files' result: one entry per path, in order; a file that cannot be read as text
    has error and code instead of data (the others are still read).
    """
    files: List[ToolReadMultipleFilesOutputFilesItem]


class ToolReadContextInput(TypedDict):
    """read_context's arguments: none."""


class _ToolReadContextOutputRequired(TypedDict):
    #: The whole of context.md, as UTF-8 text.
    content: str


class ToolReadContextOutput(_ToolReadContextOutputRequired, total=False):
    """read_context's result: context.md's text ("" while it does not exist)."""
    #: context.md's etag, for update_context's ifMatch; absent while it does not exist.
    etag: Etag


class _ToolUpdateContextInputRequired(TypedDict):
    #: Text to add (mode append) or the new whole content (mode replace).
    content: str


class ToolUpdateContextInput(_ToolUpdateContextInputRequired, total=False):
    """update_context's arguments."""
    #: append adds content (with a final newline) to the end; replace writes it whole.
    mode: Literal['append', 'replace']
    #: For replace: the etag read_context returned (PreconditionFailed when context.md changed
    #: meanwhile).
    ifMatch: Etag


#: context.md after the write.
ToolUpdateContextOutput = WriteResult


class _ToolAppendJournalInputRequired(TypedDict):
    #: The observation, in Markdown; written as a list item.
    entry: str


class ToolAppendJournalInput(_ToolAppendJournalInputRequired, total=False):
    """append_journal's arguments."""
    #: The journal's day, YYYY-MM-DD; default today (UTC).
    date: str


#: The journal file (Journal/agent/YYYY-MM-DD.md) after the write.
ToolAppendJournalOutput = WriteResult


class _DeviceConditionsRequired(TypedDict):
    network: Literal['offline', 'wifi', 'cellular', 'wired']
    isExpensive: bool
    #: Low Data Mode.
    isConstrained: bool
    isCharging: bool
    isLowPowerMode: bool


class DeviceConditions(_DeviceConditionsRequired, total=False):
    """What the host reported."""
    batteryLevel: float
    thermalState: Literal['nominal', 'fair', 'serious', 'critical']


class _PolicyRequired(TypedDict):
    deferHeavyWork: bool
    maxModelTier: ModelTier
    allowNetworkTools: bool
    #: The rules that applied, in table order.
    reasons: List[Literal['lowBattery', 'lowPowerMode', 'thermal', 'offline', 'expensiveNetwork', 'constrainedNetwork']]


class Policy(_PolicyRequired, total=False):
    """What the device conditions allow."""
    #: When something is limited (offline: what still works).
    message: str


class _QueueItemRequired(TypedDict):
    id: str
    kind: str
    #: Any JSON value.
    payload: Any
    idempotencyKey: str
    requiresNetwork: bool
    status: Literal['pending', 'completed', 'failed']
    #: How many times it failed.
    attempts: int
    createdAt: Timestamp
    updatedAt: Timestamp


class QueueItem(_QueueItemRequired, total=False):
    """One piece of work in the offline queue."""
    #: As given to queue/complete.
    result: Any
    #: As given to the last queue/fail.
    error: Any


class QueueList(TypedDict):
    items: List[QueueItem]


#: A settings key: 1 to 64 bytes of UTF-8 (so at most 64 characters); longer or empty keys fail with
#: InvalidArgument (data.key, data.limit 64, data.size).
SettingsKey = str


#: Settings as an object of key to value; a value is any JSON value but null. The store holds at
#: most 1,024 keys and 1 MB (1,048,576 bytes: each key's UTF-8 bytes plus its value's compact JSON),
#: counted over the values merged from every device.
SettingsValues = Dict[str, Any]


class SettingsGetResult(TypedDict):
    #: The values of the keys asked for that have one (all keys when `keys` is left out); keys
    #: without a value are absent.
    values: SettingsValues
    #: When the store last changed on any device (the latest write, removals included), or null when
    #: it never has.
    updatedAt: Union[Timestamp, None]


class SettingsResult(TypedDict):
    """Every value after the change (as settings/get without keys answers)."""
    values: SettingsValues


class RetentionPolicy(TypedDict, total=False):
    """
    The workspace's retention policy (kept in .workspace/sessions/retention.json, replaced crash-
    safely); only the limits that are set. Applied when the sessions open, after an append that
    takes a session over maxBytesPerSession, and by session/prune.
    """
    #: Most bytes a session's folder may hold: over it, the journal is rewritten, then compacted
    #: originals are dropped (oldest compaction first), then the oldest plain messages are folded
    #: into a compaction by retention, until the session fits in three quarters of the limit. The
    #: last message and tool results always stay.
    maxBytesPerSession: int
    #: How long the originals of a compaction are kept (then the compaction can no longer be
    #: undone).
    keepCompactedOriginalsSeconds: int
    #: How many ended (completed, failed) sessions are kept, the most recently changed; older ones
    #: are deleted.
    keepEndedSessions: int


class PruneReportSessionsItem(TypedDict):
    id: SessionId
    bytesBefore: int
    bytesAfter: int
    #: Compactions whose originals were dropped.
    droppedOriginals: List[str]
    #: Messages folded into a retention compaction (originals dropped).
    droppedMessages: int


class PruneReport(TypedDict):
    """
    What a prune did: the sessions it changed (untouched ones are not listed) and the ended sessions
    it deleted.
    """
    sessions: List[PruneReportSessionsItem]
    deletedSessions: List[SessionId]


class SessionExportResult(TypedDict):
    path: WorkspacePath
    bytes: int
    #: SHA-256 of the file's bytes.
    sha256: str
    id: SessionId


class SessionImportResultNotImported(TypedDict):
    """
    Present when the file carried consent, which an import never takes over: how many decided
    approvals and which remembered decisions (tool names) were left out.
    """
    decidedApprovals: int
    rememberedDecisions: List[str]


class _SessionImportResultRequired(TypedDict):
    session: Session


class SessionImportResult(_SessionImportResultRequired, total=False):
    #: The id the file carried, when it was taken in this workspace and the session got a new one.
    replacedId: str
    #: Present when the file carried consent, which an import never takes over: how many decided
    #: approvals and which remembered decisions (tool names) were left out.
    notImported: SessionImportResultNotImported


class PendingApproval(TypedDict):
    """
    session/callTool's answer when the call needs the user's consent: nothing has run. Answer with
    session/approve (the approval is also in session/get and session/resume, pendingApprovals).
    """
    pendingApproval: Approval


class _ApproveResultRequired(TypedDict):
    approval: Approval


class ApproveResult(_ApproveResultRequired, total=False):
    #: allow: the tool's result (the call ran, through the device policy), or a PendingApproval
    #: never; deny: an error result (structuredContent.code ApprovalDenied), recorded as the call's
    #: result. Absent for an approval of origin mcp: the MCP client's retry runs or refuses the
    #: call.
    result: ToolResult


class DeferredListEntry(TypedDict):
    """A deferred tool call with its session, and whether the device policy would run it now."""
    sessionId: SessionId
    toolCallId: str
    name: str
    arguments: Any
    reason: str
    at: Timestamp
    #: Whether the device policy would run it under the current conditions (without a confirmation).
    runnableNow: bool


class DeferredList(TypedDict):
    calls: List[DeferredListEntry]


class MessageWhere(TypedDict, total=False):
    """Which messages: a role and/or exact values of top-level metadata keys (all must hold)."""
    role: MessageRole
    #: Top-level keys and the exact values they must have (a message without metadata matches none).
    metadata: Dict[str, Any]


class MessagesDeleted(TypedDict):
    #: The ids deleted, in journal order (empty when nothing matched).
    deleted: List[str]


class TurnStatsUsageByModelItem(TypedDict):
    #: As given to session/recordUsage ("" when none was).
    model: str
    inputTokens: int
    outputTokens: int


class TurnStatsUsage(TypedDict):
    inputTokens: int
    outputTokens: int
    #: session/recordUsage calls.
    modelCalls: int
    estimatedCostUSD: float
    byModel: List[TurnStatsUsageByModelItem]


class TurnStatsToolCalls(TypedDict):
    count: int
    #: Calls by tool name.
    byName: Dict[str, int]
    #: Calls by outcome: ok, error, unfinished.
    byOutcome: Dict[str, int]


class _TurnStatsRequired(TypedDict):
    #: Messages of the turn the session still has (compacted ones included).
    messages: int
    usage: TurnStatsUsage
    toolCalls: TurnStatsToolCalls


class TurnStats(_TurnStatsRequired, total=False):
    """One turn (from a user message to the next) or the totals of all."""
    #: The user message that opened the turn (absent for what came before the first one, and in
    #: totals).
    userMessageId: str
    startedAt: Timestamp


class SessionStatsUnattributed(TypedDict):
    """
    Usage the session counts from before its journal's records (a journal rewritten by compaction or
    retention, or imported, starts from totals): only when not zero.
    """
    inputTokens: int
    outputTokens: int


class _SessionStatsRequired(TypedDict):
    id: SessionId
    turns: List[TurnStats]
    totals: TurnStats


class SessionStats(_SessionStatsRequired, total=False):
    #: Usage the session counts from before its journal's records (a journal rewritten by compaction
    #: or retention, or imported, starts from totals): only when not zero.
    unattributed: SessionStatsUnattributed


#: A wsb: URI: `wsb:/file/PATH` (a workspace file's text), `wsb:/file/PATH?etag=ETAG` (the same,
#: checked to be at that etag: the store keeps no versions), `wsb:/conflict/PATH` (a sync engine's
#: conflict copy, beside its original), `wsb:/session/ID` (a session's transcript, Markdown),
#: `wsb:/export/ID` (the session's export, as session/export writes it). PATH is percent-encoded; a
#: query's `=` may be encoded too (`%3D`).
ContentDocumentUri = str


class TextDocumentContentResult(TypedDict):
    #: The document's whole text.
    text: str


class TextDocumentContentRefreshParams(TypedDict):
    """
    The params of workspace/textDocumentContent/refresh, the request the server sends a client that
    declared capabilities.workspace.textDocumentContent when a wsb: document it read changes (its
    answer is ignored).
    """
    uri: ContentDocumentUri


class SessionSearchMatch(TypedDict):
    """
    Where the query matched, in UTF-16 code units from the start of the field's searched text (as
    LSP positions and JavaScript strings count).
    """
    start: int
    length: int


class _SessionSearchHitRequired(TypedDict):
    sessionId: SessionId
    sessionTitle: str
    agentType: str
    state: SessionState
    kind: Literal['message', 'toolCall']
    #: content or toolCalls of a message; name, arguments or result of a tool call.
    field: Literal['content', 'toolCalls', 'name', 'arguments', 'result']
    at: Timestamp
    #: The matches in the field (at most 16), plus 8 when the first match is a whole word. Hits are
    #: ranked by score, then newer first, then by session, item and field.
    score: int
    #: Every match in the field.
    matchCount: int
    #: The first 16 matches, in order.
    matches: List[SessionSearchMatch]
    #: About 200 bytes of the field around its first match (from 60 bytes before it), cut at
    #: character boundaries.
    snippet: str
    #: Where the snippet starts in the field, in UTF-16 code units: a match is at start -
    #: snippetStart in the snippet.
    snippetStart: int


class SessionSearchHit(_SessionSearchHitRequired, total=False):
    """
    One field of a message or a tool call that matches. The searched text of a field is its string,
    or for any other JSON value its strings in document order joined by \\n (member values and array
    items, recursively; not keys, numbers, booleans, nor the values of members named type).
    """
    #: kind message: the message's id (a compaction's summary: the compaction's id, the message id
    #: session/messages shows).
    messageId: str
    role: MessageRole
    #: kind toolCall: the call's id.
    toolCallId: str
    #: kind toolCall: the tool's name.
    toolName: str
    #: An original of a compacted run (found with includeCompacted): the compaction that replaces
    #: it.
    compactedBy: str
    #: True on a compaction's summary.
    summary: bool


class _SessionSearchResultRequired(TypedDict):
    hits: List[SessionSearchHit]
    #: Every hit of the search, on every page.
    totalHits: int
    #: Sessions read (those filtered out by states or agentTypes, or gone, are not counted).
    sessionsSearched: int


class SessionSearchResult(_SessionSearchResultRequired, total=False):
    #: Present when more hits follow: pass it as cursor with the same query and filters.
    nextCursor: str


class SessionTransitionError(TypedDict, total=False):
    """With to: failed: why (kept as the session's error)."""
    code: str
    message: str


ToolCallAnswer = Union[ToolResult, PendingApproval]


class SetRetentionResult(TypedDict):
    policy: RetentionPolicy
    pruned: PruneReport


ToolList = List[ToolDefinition]


class BackgroundResult(TypedDict):
    #: The sessions it moved.
    sessions: List[Session]


class ForegroundResultSessionsItem(TypedDict):
    session: Session
    checkpoint: Union[Checkpoint, None]


class ForegroundResult(TypedDict):
    sessions: List[ForegroundResultSessionsItem]


class PolicyResult(TypedDict):
    policy: Policy


class ConditionsResult(TypedDict):
    conditions: DeviceConditions
    policy: Policy


class BlockResult(TypedDict):
    #: Bytes read before end of file.
    bytes: int


#: The result of the method the command names.
CommandResult = Any


class ProgressParams(TypedDict):
    """
    Work-done progress of a request that carried workDoneToken: begin, reports (at most 10 a
    second), end, always before the response.
    """
    token: ProgressToken
    value: ProgressValue


class WindowLogMessageParams(TypedDict):
    """A server log record forwarded while trace is messages or verbose."""
    type: MessageType
    message: str


class _LogTraceParamsRequired(TypedDict):
    message: str


class LogTraceParams(_LogTraceParamsRequired, total=False):
    """
    LSP trace: while trace is messages or verbose, one per request or notification the server
    handled, after its answer: what it was, how it ended and how long it took; `verbose` (only with
    trace verbose) adds its params and answer, each cut to 1,000 characters. Never sent with trace
    off, nor on an MCP connection. Sent by a client, it is ignored like any unknown $/ notification.
    """
    verbose: str


class _WorkspaceDidChangeFilesParamsRequired(TypedDict):
    changes: List[FileChange]


class WorkspaceDidChangeFilesParams(_WorkspaceDidChangeFilesParamsRequired, total=False):
    """
    Changes in the workspace (by anyone), within 500 ms, coalesced; sent after initialize with
    capabilities.workspace.didChangeFiles or after watchFiles.
    """
    #: List again: the server lost track of changes (the kernel queue overflowed), or the storage
    #: choice switched the active root and the whole tree is another one.
    rescan: bool


_SessionDidChangeStateParamsRequired = TypedDict("_SessionDidChangeStateParamsRequired", {
    'id': SessionId,
    'from': SessionState,
    'to': SessionState,
})


_SessionDidChangeStateParamsOptional = TypedDict("_SessionDidChangeStateParamsOptional", {
    # BudgetExceeded, background, resume, or the message of the error given with failed.
    'reason': str,
}, total=False)


class SessionDidChangeStateParams(_SessionDidChangeStateParamsRequired, _SessionDidChangeStateParamsOptional):
    """
    A session's state changed (by a transition, backgrounding, resume, or a budget), once durable.
    """


class SessionDeferredReadyParams(TypedDict):
    """
    New device conditions (host/setConditions) let deferred tool calls run that the previous ones
    did not: send each session/callTool again to run it.
    """
    calls: List[DeferredListEntry]


class QueueReadyParams(TypedDict):
    """
    The network came back (host/setConditions from offline to online): the due items, in enqueue
    order.
    """
    items: List[QueueItem]


class SettingsDidChangeParams(TypedDict):
    """
    Synced settings changed other than through this connection: values written by another process on
    this device (source local) or arriving from another device through the sync engine (source
    remote).
    """
    #: Key to its new value, or null when it was removed.
    changed: Dict[str, Any]
    #: local: the winning write was made on this device (another process); remote: on another
    #: device.
    source: Literal['local', 'remote']
