/// Where the active workspace lives on this machine.
public enum StorageLocation: String, Sendable, CaseIterable {
    case local, cloud
}

/// The user's answer to the first-run question (the seeds' mandatory choice).
public enum StorageChoice: String, Sendable, CaseIterable {
    case local, cloud, decideLater
}
