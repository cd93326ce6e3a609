public import MRTDCore
public import MRTDProtocol
import MRTDReaders

/// The access secret of one job. Held only while the job waits or reads; `wipe()` drops it the
/// moment the read ends. (Swift strings cannot be zeroed in place: dropping the last reference is
/// what is possible; the session keys derived from it are wiped by the protocol layer.)
public final class AccessSecret: @unchecked Sendable {
    /// What the caller gave.
    public enum Value: Sendable {
        case mrz(MRZKey)
        case can(String)
    }
    private var value: Value?
    private let lock = NSLockBox()

    public init(_ value: Value) {
        self.value = value
    }

    /// The secret, or nil once wiped.
    public func take() -> Value? { lock.with { value } }

    public func wipe() { lock.with { value = nil } }

    /// `MRZ` or `CAN`, for logs and metrics.
    public var kind: String {
        lock.with {
            switch value {
            case .mrz: return "MRZ"
            case .can: return "CAN"
            case nil: return "wiped"
            }
        }
    }
}

/// What a job asks the engine to do.
public struct ReadParameters: Sendable {
    public var access: AccessSecret
    public var dataGroups: [Int]
    public var accessPolicy: AccessPolicy
}

/// Performs the chip session of a job. The daemon's extension point for PACE, CAN and passive
/// authentication: the lead wires those into an engine (or into `DocumentReader`) and passes it to
/// `Daemon`.
public protocol ReadEngine: Sendable {
    /// Refuses, before a job is created, what this engine cannot do (a CAN without PACE).
    func validate(access: AccessSecret.Value, policy: AccessPolicy) throws(APIError)
    /// Reads the chip behind `transport`. A failed read is a result with `status: failed`.
    func read(transport: any APDUTransport, parameters: ReadParameters, progress: @escaping ReadProgressHandler) async -> DocumentReader.Read
    /// What passive authentication trusts (for `GET /v1/health`).
    var trustStore: TrustStoreSummary { get }
}

/// The engine of this build: `DocumentReader` with BAC.
public struct StandardReadEngine: ReadEngine {
    public let trustStore: TrustStoreSummary

    public init(trustStore: TrustStoreSummary) {
        self.trustStore = trustStore
    }

    public func validate(access: AccessSecret.Value, policy: AccessPolicy) throws(APIError) {
        // LEAD: wire CAN (PACE with a CAN password) — map .can onto AccessKey.can and drop this refusal.
        if case .can = access { throw .canNotSupported }
        // LEAD: wire PACE policy — pace-only needs PACE; pace-or-bac falls back to BAC until then.
        if policy == .paceOnly { throw .accessPolicyNotSupported }
    }

    public func read(
        transport: any APDUTransport, parameters: ReadParameters, progress: @escaping ReadProgressHandler
    ) async -> DocumentReader.Read {
        guard case .mrz(let key) = parameters.access.take() else {
            return DocumentReader.Read(
                result: ReadResult(status: .failed, error: .init(code: "canNotSupported", message: APIError.canNotSupported.message)),
                files: [:])
        }
        let options = ReadOptions(accessKey: .mrz(key), dataGroups: parameters.dataGroups)
        return await DocumentReader.read(transport: transport, options: options, progress: progress)
    }
}
