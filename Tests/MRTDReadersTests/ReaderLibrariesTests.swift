import Testing
@testable import MRTDReaders

@Suite struct ReaderLibrariesTests {
    @Test func libnfcIsLinkedAndReportsItsVersion() {
        #expect(ReaderLibraries.libnfcVersion.hasPrefix("1."))
    }

    @Test func pcscLiteIsLinkedAndDescribesErrors() {
        // SCARD_E_NO_SMARTCARD = 0x8010000C
        #expect(ReaderLibraries.pcscDescription(0x8010_000C).lowercased().contains("card"))
    }
}
