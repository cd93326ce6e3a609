import Testing
@testable import MRTDDaemon
import Logging
import MRTDProtocol
import MRTDReaders
import MRTDCore

@Suite struct ConfigurationTests {
    @Test func fileSettingsOverrideDefaultsAndCommentsAreIgnored() throws {
        var config = DaemonConfiguration()
        try config.apply(file: """
            # mrtdd.conf
            socket = /tmp/x.sock   # trailing comment
            trust-store = /a, /b
            trust-store = /c
            access-policy = bac
            read-timeout = 90s
            result-retention = 2m
            backends = pcsc
            log-level = debug
            """)
        #expect(config.socketPath == "/tmp/x.sock")
        #expect(config.trustStorePaths == ["/a", "/b", "/c"])
        #expect(config.accessPolicy == .bac)
        #expect(config.readTimeout == .seconds(90))
        #expect(config.resultRetention == .seconds(120))
        #expect(config.backends == [.pcsc])
        #expect(config.logLevel == .debug)
    }

    @Test(arguments: [
        ("bogus = 1", ConfigurationError.syntax(file: "mrtdd.conf", line: 1, "unknown setting 'bogus'")),
        ("read-timeout = -3", .syntax(file: "mrtdd.conf", line: 1, "invalid value '-3' for 'read-timeout'")),
        ("\nno equals sign", .syntax(file: "mrtdd.conf", line: 2, "expected 'key = value'")),
        ("backends = pcsc, usb", .syntax(file: "mrtdd.conf", line: 1, "invalid value 'usb' for 'backends'")),
    ])
    func badLinesAreRefusedWithTheirLineNumber(text: String, expected: ConfigurationError) {
        var config = DaemonConfiguration()
        #expect(throws: expected) { try config.apply(file: text) }
    }

    @Test func terminalDirectoryIsAnAbsolutePathOrOff() throws {
        var config = DaemonConfiguration()
        #expect(config.terminalDirectory == nil)
        try config.apply(file: "terminal-directory = /etc/mrtdd/terminal\n")
        #expect(config.terminalDirectory == "/etc/mrtdd/terminal")
        try config.set("terminal-directory", "")
        #expect(config.terminalDirectory == nil)
        #expect(throws: ConfigurationError.syntax(file: "mrtdd.conf", line: 1, "invalid value 'terminal' for 'terminal-directory'")) {
            try config.apply(file: "terminal-directory = terminal")
        }
    }

    /// A setting whose mechanism was removed (`release-code-pages`, issue 30) does not stop a daemon
    /// whose configuration file still names it: accepted, ignored, listed for the start log's warning.
    @Test func aRetiredSettingIsAcceptedIgnoredAndListed() throws {
        var config = DaemonConfiguration()
        let before = config
        try config.apply(file: "release-code-pages = yes\nrelease-code-pages = no\n")
        #expect(config.retiredSettings == ["release-code-pages"])
        config.retiredSettings = []
        #expect(config == before, "nothing else changed")
        #expect(DaemonConfiguration.retiredKeys["release-code-pages"] != nil)
    }
}
