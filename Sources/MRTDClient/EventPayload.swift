public import MRTDCore

/// The types of the events of `GET /v1/events` (docs/events.md), as the SSE `event:` field names them.
public enum EventType: String, Sendable, CaseIterable {
    case readerAdded = "reader.added"
    case readerRemoved = "reader.removed"
    case cardInserted = "card.inserted"
    case cardRemoved = "card.removed"
    case readProgress = "read.progress"
    case readFinished = "read.finished"
    case readFailed = "read.failed"
    case mrzCaptured = "mrz.captured"
    case mrzRejected = "mrz.rejected"
    /// Sent first to a resuming subscriber whose missed events are lost.
    case eventsReset = "events.reset"
}

/// Payloads of the events, as in docs/openapi.yaml.
public enum EventPayload {
    public struct Reader: Codable, Sendable, Equatable {
        public var reader: String
        public var backend: ReaderBackendKind?
        public init(reader: String, backend: ReaderBackendKind? = nil) {
            self.reader = reader
            self.backend = backend
        }
    }
    public struct Card: Codable, Sendable, Equatable {
        public var reader: String
        /// The ATR (hex), which identifies the chip type, not the document.
        public var atr: String?
        public init(reader: String, atr: String? = nil) {
            self.reader = reader
            self.atr = atr
        }
    }
    public struct Progress: Codable, Sendable, Equatable {
        public var id: String
        public var reader: String
        public var phase: ReadProgress.Phase
        public var file: String?
        public var percent: Int
        public init(id: String, reader: String, phase: ReadProgress.Phase, file: String? = nil, percent: Int) {
            self.id = id
            self.reader = reader
            self.phase = phase
            self.file = file
            self.percent = percent
        }
    }
    public struct Finished: Codable, Sendable, Equatable {
        public var id: String
        public var reader: String?
        public var status: ReadResult.Status
        public var durationMs: Double
        public init(id: String, reader: String? = nil, status: ReadResult.Status, durationMs: Double) {
            self.id = id
            self.reader = reader
            self.status = status
            self.durationMs = durationMs
        }
    }
    public struct Failed: Codable, Sendable, Equatable {
        public var id: String
        public var reader: String?
        /// A code this build does not know (a newer daemon's) decodes as `readFailed`.
        public var error: ErrorCode
        public var message: String
        public init(id: String, reader: String? = nil, error: ErrorCode, message: String) {
            self.id = id
            self.reader = reader
            self.error = error
            self.message = message
        }
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            reader = try container.decodeIfPresent(String.self, forKey: .reader)
            error = ErrorCode(decoding: try container.decode(String.self, forKey: .error))
            message = try container.decode(String.self, forKey: .message)
        }
    }
    /// `events.reset`: sent first to a client resuming with `Last-Event-ID` when the events after it
    /// are lost. Ids are strings (as on the wire): they exceed what JSON numbers carry exactly.
    public struct Reset: Codable, Sendable, Equatable {
        /// `expired` (older than the kept history) or `unknownId` (no id of this run: a restart).
        public var reason: String
        public var lastEventId: String
        /// The oldest id still kept, if any.
        public var oldestId: String?

        public init(reason: String, lastEventId: String, oldestId: String?) {
            self.reason = reason
            self.lastEventId = lastEventId
            self.oldestId = oldestId
        }
    }

    /// A look-alike character an MRZ capture corrected (`O/0`, …): where, never what.
    public struct MRZCorrection: Codable, Sendable, Equatable {
        public var field: String
        public var line: Int
        public var column: Int
        public var pair: String
        public init(field: String, line: Int, column: Int, pair: String) {
            self.field = field
            self.line = line
            self.column = column
            self.pair = pair
        }
    }
    /// `mrz.captured`: a scanner (or `POST /v1/mrz`) delivered an MRZ whose check digits hold; a read
    /// job waits for the card. No MRZ content: the format, the corrections' places, the job.
    public struct MRZCaptured: Codable, Sendable, Equatable {
        /// The source's name (`serial:/dev/ttyUSB0`, `api`).
        public var source: String
        /// The reader the read is bound to; nil: any reader.
        public var reader: String?
        /// `TD1`, `TD2` or `TD3`.
        public var format: String
        public var corrections: [MRZCorrection]
        /// The read job started for it.
        public var id: String?
        public init(source: String, reader: String?, format: String, corrections: [MRZCorrection], id: String?) {
            self.source = source
            self.reader = reader
            self.format = format
            self.corrections = corrections
            self.id = id
        }
    }
    /// `mrz.rejected`: a scanner frame that starts no read, and why (a registry code and a message
    /// without MRZ content): a wrong check digit, an unreadable frame, a line error.
    public struct MRZRejected: Codable, Sendable, Equatable {
        public var source: String
        public var reader: String?
        /// A code this build does not know (a newer daemon's) decodes as `readFailed`.
        public var error: ErrorCode
        public var message: String
        public init(source: String, reader: String?, error: ErrorCode, message: String) {
            self.source = source
            self.reader = reader
            self.error = error
            self.message = message
        }
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            source = try container.decode(String.self, forKey: .source)
            reader = try container.decodeIfPresent(String.self, forKey: .reader)
            error = ErrorCode(decoding: try container.decode(String.self, forKey: .error))
            message = try container.decode(String.self, forKey: .message)
        }
    }
}
