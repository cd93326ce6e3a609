/// libFuzzer's entry point for programs that have their own `main` (SwiftPM gives every executable
/// one): runs the fuzzing loop over `test` with the process arguments.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

public enum FuzzDriver {
    /// Runs libFuzzer with `test` as the target; never returns normally.
    public static func run(_ test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        let status = LLVMFuzzerRunDriver(&argc, &argv, test)
        exit(status)
    }
}

@_silgen_name("exit")
private func exit(_ status: CInt) -> Never
