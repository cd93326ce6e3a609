import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDProtocol
import MRTDReaders
import MRTDSimulation
import MRTDTranscript

extension DirectReadOptions {
    /// Finds the reader, connects, and reads with reconnection: a card lost mid-read is read again
    /// from where it stopped when it is presented again within the recovery deadline.
    ///
    /// With `record`, the session (every link, link failures included) is written there as a transcript.
    func readReconnecting(json: Bool, options: ReadOptions, record: String?) async throws -> DocumentReader.Read {
        let backends = DirectBackends.all()
        do {
            let (backend, name) = try await DirectReaderSelection.locate(
                in: backends, reader: reader, wait: wait.map { .milliseconds(Int64($0 * 1000)) })
            let first = try await backend.connect(reader: name)
            let holder = ReconnectingCardSource(first: first, backend: backend, reader: name)
            let read: DocumentReader.Read
            do {
                read = try await RecordedRead.run(
                    .reconnecting({ try await holder.next() }),
                    reader: .init(name: first.reader.name, backend: first.reader.backend.rawValue, capabilities: first.capabilities),
                    atr: first.atr, options: options, record: record)
            } catch {
                await holder.close()
                throw error
            }
            await holder.close()
            for backend in backends { await backend.shutdown() }
            return read
        } catch {
            for backend in backends { await backend.shutdown() }
            let failure = (error as? ReaderError) ?? .backendFailure(.pcsc, "\(error)")
            let result = ReadResult(status: .failed, error: .init(code: failure.errorCode, message: failure.description))
            print(json ? try ResultPrinter.json(result) : ResultPrinter.summary(result))
            throw ExitStatus.readFailed
        }
    }
}
