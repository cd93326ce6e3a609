import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDClient
import MRTDProtocol
import MRTDReaders
import MRTDPlatform

/// `mrtdctl health`.
struct Health: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's health (JSON).")
    @OptionGroup var daemon: DaemonOptions

    func run() async throws {
        try await reportingDaemonErrors { try printJSON(try await daemon.client.health()) }
    }
}

/// `mrtdctl readers` without `--direct`: the readers the daemon sees.
enum DaemonReaders {
    static func run(daemon: DaemonOptions, json: Bool) async throws {
        let readers = try await reportingDaemonErrors { try await daemon.client.readers() }
        if json { return try printJSON(ReadersView(readers: readers)) }
        if readers.isEmpty { print("no readers") }
        for reader in readers {
            let state = [reader.cardPresent ? "card present" : "no card", reader.busy ? "busy" : nil].compactMap { $0 }
            print("\(reader.name)  [\(reader.backend.rawValue)\(reader.capabilities.extendedLength ? ", extended length" : "")]  \(state.joined(separator: ", "))")
        }
    }
}

/// `mrtdctl events`: follows the event stream.
struct Events: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Follow the daemon's events (one line per event: type and JSON).")
    @OptionGroup var daemon: DaemonOptions
    @Option(name: .customLong("last-event-id"), help: ArgumentHelp(
        "Resume after this event id (as --ids prints it): the daemon's kept events after it come first, or an events.reset event when they are lost.",
        valueName: "id"))
    var lastEventID: String?
    @Flag(help: "Start each line with the event's id (what --last-event-id takes).")
    var ids = false

    func validate() throws {
        if let lastEventID, EventID.parse(lastEventID) == nil {
            throw ValidationError("--last-event-id must be an event id (decimal digits)")
        }
    }

    func run() async throws {
        try await reportingDaemonErrors {
            for try await event in daemon.client.events(lastEventID: lastEventID) {
                let prefix = ids ? "\(event.id ?? "-") " : ""
                StandardOutput.write("\(prefix)\(event.type) \(event.data)\n")
            }
        }
    }
}

/// `mrtdctl result ID`.
struct Result: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show a read job and its result.")
    @OptionGroup var daemon: DaemonOptions
    @Argument(help: "The job id.") var id: String
    @Flag(help: "Print the job as JSON.") var json = false
    @Option(help: "Write the face image to this file (as read --face).") var face: String?
    @Option(help: "Write the images besides the face to this directory (as read --images).") var images: String?
    @OptionGroup(title: "Evidence (docs/evidence.md)") var evidence: EvidenceOptions

    func run() async throws {
        let client = daemon.client
        let job = try await reportingDaemonErrors { try await client.job(id) }
        try await DaemonRead.show(job, client: client, json: json, face: face, images: images, jsonAsJob: true, evidence: evidence)
    }
}

/// `mrtdctl cancel ID`.
struct Cancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Cancel a read job, or purge a finished one.")
    @OptionGroup var daemon: DaemonOptions
    @Argument(help: "The job id.") var id: String

    func run() async throws {
        let view = try await reportingDaemonErrors { try await daemon.client.cancel(id) }
        print(view.map { "\($0.id): \($0.state.rawValue)" } ?? "\(id): purged")
    }
}

/// Options of `mrtdctl read` that only apply through the daemon.
/// `read` options for the daemon path only; `--reader`, `--can` and `--access` are shared with the
/// direct and simulated reads.
struct DaemonReadOptions: ParsableArguments {
    @Option(help: "Give up after this many seconds (through the daemon).") var timeout: Double?
}

/// `mrtdctl read` through the daemon: subscribe to events, create the job, print progress until it
/// ends, then print the result like a direct read.
enum DaemonRead {
    static func run(
        daemon: DaemonOptions, options: DaemonReadOptions, mrz: String?, mrzKey: String?, can: String?,
        reader: String?, accessPolicy: MRTDCore.AccessPolicy, dataGroups: [Int]?, json: Bool, face: String?,
        images: String? = nil, aaChallenge: String? = nil, evidence: EvidenceOptions? = nil
    ) async throws {
        // Range-checked here too: the daemon caps the value, but a client never sends one it cannot mean.
        if let timeout = options.timeout, !(timeout > 0 && timeout <= 86_400) {
            throw ValidationError("--timeout must be between 0 and 86400 seconds")
        }
        var access = ReadJobRequest.Access()
        if let mrz {
            access.mrz = mrz
        } else if let mrzKey {
            let parts = mrzKey.split(separator: ",").map { $0.trimmingSpaces() }
            guard parts.count == 3 else { throw ValidationError("--mrz-key takes DOCNO,YYMMDD,YYMMDD") }
            access.mrzKey = .init(documentNumber: parts[0], dateOfBirth: parts[1], dateOfExpiry: parts[2])
        } else if let can {
            access.can = can
        } else {
            throw ValidationError("reading through mrtdd needs --mrz, --mrz-key, --can or --access-file (or a terminal to ask on)")
        }
        let request = ReadJobRequest(
            reader: reader, access: access, dataGroups: dataGroups,
            accessPolicy: accessPolicy, timeoutSeconds: options.timeout, aaChallenge: aaChallenge,
            keepEvidence: evidence != nil ? true : nil)
        let client = daemon.client
        let job = try await reportingDaemonErrors { () async throws -> ReadJobView in
            // Subscribe first, so no progress of the job is missed; give up waiting after 2 s.
            let opened = Locked(false)
            let ended = Locked(false)
            let events = client.events { opened.withValue { $0 = true } }
            let printer = Task { () -> Void in
                defer { ended.withValue { $0 = true } }
                do {
                    for try await event in events where event.type == "read.progress" {
                        if let progress = try? JSONDecoder().decode(EventPayload.Progress.self, from: Data(event.data.utf8)) {
                            StandardError.write("  \(progress.percent)% \(progress.phase)\(progress.file.map { " \($0)" } ?? "") on \(progress.reader)\n")
                        }
                    }
                } catch {}
            }
            for _ in 0..<100 where !opened.current && !ended.current {
                try await Task.sleep(for: .milliseconds(20))
            }
            let created = try await client.createRead(request)
            if !json { StandardError.write("mrtdctl: job \(created.id) \(created.state.rawValue); present the document\n") }
            var view = created
            while !view.state.isFinished {
                try await Task.sleep(for: .milliseconds(50))
                view = try await client.job(created.id)
            }
            printer.cancel()
            return view
        }
        try await show(job, client: client, json: json, face: face, images: images, evidence: evidence)
    }

    /// Prints a finished job: `--json` prints the result model, as a direct read does (the whole job
    /// with `jsonAsJob`); without, the readable summary.
    static func show(
        _ job: ReadJobView, client: DaemonClient, json: Bool, face: String?, images: String? = nil, jsonAsJob: Bool = false,
        evidence: EvidenceOptions? = nil
    ) async throws {
        if let evidence, evidence.evidence != nil, job.state == .done {
            try await evidence.write(job: job.id, client: client)
        }
        if let face, job.result?.face != nil {
            let image = try await reportingDaemonErrors { try await client.face(job.id) }
            try PrivateOutput.write(image.bytes, toFile: face)
        }
        if let images, let listed = job.result?.images {
            var fetched: [(name: String, bytes: [UInt8], mimeType: String)] = []
            for info in listed {
                let image = try await reportingDaemonErrors { try await client.image(job.id, name: info.name) }
                fetched.append((info.name, image.bytes, image.contentType))
            }
            try ImageWriter.write(fetched, to: images)
        }
        if json && jsonAsJob {
            try printJSON(job)
        } else if json {
            let error = job.error.map { ReadResult.ErrorInfo(code: $0.error, message: $0.message) }
            try printJSON(job.result ?? ReadResult(status: .failed, error: error))
        } else if let result = job.result {
            print(ResultPrinter.summary(result))
        } else {
            print("\(job.id): \(job.state.rawValue)\(job.error.map { " — \($0.message) [\($0.error)]" } ?? "")")
        }
        switch job.state {
        case .failed, .cancelled: throw ExitStatus.readFailed
        case .done where job.result?.status == .invalid: throw ExitStatus.invalidDocument
        default: break
        }
    }
}
