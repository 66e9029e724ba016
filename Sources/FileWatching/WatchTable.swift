/// The watched directories as a tree keyed by watch descriptor, each with the names of its
/// other entries (so a rename over an existing name reads as a change, not a new file).
///
/// Pure bookkeeping, no system calls: every mutation returns the descriptors the caller must
/// unwatch. Each node knows its parent, its name and its children by name, so an event's
/// path is one lookup, a directory's child is one lookup, and dropping or relocating a
/// subtree touches only that subtree (an `rm -rf` of 10,000 folders stays linear).
struct WatchTable {
    struct Node {
        var path: String                    // "" for the root
        var parent: Int32                   // -1 for the root
        var name: String
        var children: [String: Int32] = [:]
        /// The names of the entries other than folders, as last read or reported, so a rename
        /// over an existing name is told apart from a new one.
        var files: Set<String> = []
    }

    private(set) var nodes: [Int32: Node] = [:]
    private(set) var rootWd: Int32 = -1

    var count: Int { nodes.count }

    func path(of wd: Int32) -> String? { nodes[wd]?.path }

    func child(of parent: Int32, named name: String) -> Int32? { nodes[parent]?.children[name] }

    /// Records that the folder `wd` has an entry `name` (not a folder); returns whether it was
    /// recorded already.
    @discardableResult
    mutating func recordFile(_ name: String, in wd: Int32) -> Bool {
        guard let inserted = nodes[wd]?.files.insert(name).inserted else { return false }
        return !inserted
    }

    mutating func forgetFile(_ name: String, in wd: Int32) {
        nodes[wd]?.files.remove(name)
    }

    /// Records `wd` as the directory `name` inside `parent` (`parent` -1 and `name` "" for the
    /// root). The kernel hands back the existing descriptor when a directory is already
    /// watched; if it sits elsewhere in the table (moved, and the move's events are still
    /// queued) it is relocated with its subtree. Whatever was recorded at the target before
    /// is dropped. Returns descriptors to unwatch; when they include `wd` itself, the
    /// directory was not recorded (its parent is unknown).
    mutating func insert(wd: Int32, parent: Int32, name: String) -> [Int32] {
        var dropped: [Int32] = []
        let path: String
        if parent < 0 {
            if rootWd >= 0 && rootWd != wd { dropped += removeSubtree(rootWd) }
            rootWd = wd
            path = ""
        } else {
            guard let parentNode = nodes[parent] else { return [wd] + removeSubtree(wd).filter { $0 != wd } }
            if let previous = parentNode.children[name], previous != wd {
                dropped += removeSubtree(previous)
            }
            path = parentNode.path.isEmpty ? name : parentNode.path + "/" + name
        }
        if let existing = nodes[wd] {
            if existing.parent == parent && existing.name == name { return dropped }
            if parent >= 0 && isAncestor(wd, of: parent) {
                // Stale positions would form a cycle: forget that subtree (and `wd` with it).
                return dropped + removeSubtree(wd)
            }
            detach(wd)
            nodes[wd]?.parent = parent
            nodes[wd]?.name = name
            nodes[wd]?.path = path
            attach(wd)
            renameDescendants(of: wd)
            return dropped
        }
        nodes[wd] = Node(path: path, parent: parent, name: name)
        attach(wd)
        return dropped
    }

    /// Forgets `wd` and everything below it. Returns the descriptors forgotten.
    mutating func removeSubtree(_ wd: Int32) -> [Int32] {
        guard nodes[wd] != nil else { return [] }
        detach(wd)
        if wd == rootWd { rootWd = -1 }
        var removed: [Int32] = []
        var stack = [wd]
        while let next = stack.popLast() {
            guard let node = nodes.removeValue(forKey: next) else { continue }
            removed.append(next)
            stack.append(contentsOf: node.children.values)
        }
        return removed
    }

    /// Forgets everything. Returns all descriptors.
    mutating func removeAll() -> [Int32] {
        let all = Array(nodes.keys)
        nodes.removeAll()
        rootWd = -1
        return all
    }

    private func isAncestor(_ candidate: Int32, of wd: Int32) -> Bool {
        var current: Int32 = wd
        var steps = 0
        while current >= 0, steps <= nodes.count {
            if current == candidate { return true }
            guard let node = nodes[current] else { return false }
            current = node.parent
            steps += 1
        }
        return false
    }

    private mutating func attach(_ wd: Int32) {
        guard let node = nodes[wd], node.parent >= 0 else { return }
        nodes[node.parent]?.children[node.name] = wd
    }

    private mutating func detach(_ wd: Int32) {
        guard let node = nodes[wd], node.parent >= 0 else { return }
        if nodes[node.parent]?.children[node.name] == wd {
            nodes[node.parent]?.children[node.name] = nil
        }
    }

    private mutating func renameDescendants(of wd: Int32) {
        var stack = [wd]
        while let next = stack.popLast() {
            guard let node = nodes[next] else { continue }
            for (name, child) in node.children {
                nodes[child]?.path = node.path.isEmpty ? name : node.path + "/" + name
                stack.append(child)
            }
        }
    }
}
