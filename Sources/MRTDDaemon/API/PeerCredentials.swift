/// The uid, gid and pid of the process on the other end of an API connection (`SO_PEERCRED`).
///
/// Taken once per connection when it is accepted and carried with every request on it; a
/// connection whose credentials cannot be read is closed unanswered (never served as "anyone").
public struct PeerCredentials: Sendable, Equatable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    public init(pid: Int32, uid: UInt32, gid: UInt32) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }

    /// Root sees every job and every event and is bound by the global limits only, not the per-uid quotas.
    public var isRoot: Bool { uid == 0 }

    /// Whether this caller may see and act on something owned by `owner`: the owner itself or root.
    /// An owner that is unknown (nil) belongs to root only.
    func mayAccess(ownedBy owner: PeerCredentials?) -> Bool {
        isRoot || owner.map { $0.uid == uid } ?? false
    }
}

/// Counts per uid against a global limit and a per-uid quota (connections, jobs, event streams).
/// Root is bound by the global limit only. Not thread-safe: its owner locks it.
struct UIDQuota: Sendable {
    enum Refusal: Equatable { case global, perUser }
    let limit: Int
    let perUser: Int
    private(set) var total = 0
    private var byUID: [UInt32: Int] = [:]

    init(limit: Int, perUser: Int) {
        self.limit = limit
        self.perUser = perUser
    }

    func count(of uid: UInt32) -> Int { byUID[uid] ?? 0 }

    /// Takes one unit for `uid`, or says which bound refuses it.
    mutating func take(_ uid: UInt32) -> Refusal? {
        guard total < limit else { return .global }
        guard uid == 0 || count(of: uid) < perUser else { return .perUser }
        total += 1
        byUID[uid, default: 0] += 1
        return nil
    }

    mutating func release(_ uid: UInt32) {
        guard let held = byUID[uid], held > 0 else { return }
        total -= 1
        byUID[uid] = held == 1 ? nil : held - 1
    }
}
