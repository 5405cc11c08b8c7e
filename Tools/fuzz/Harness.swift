// libFuzzer entry for every parser of what others send. Built by Tools/fuzz/run
// with the module sources compiled into this one binary (project imports
// stripped), so every parser is instrumented. FUZZ_TARGET picks the target;
// FUZZ_WRITE_SEEDS=DIR writes that target's seeds, made by the project's own
// builders, and exits; FUZZ_LIST=1 prints each target's name and longest
// input and exits. `FuzzTarget.all` lists them, with what each checks.
import Foundation

let fuzzTarget = FuzzTarget.named(ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? "control")

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<CInt>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> CInt {
    if ProcessInfo.processInfo.environment["FUZZ_LIST"] != nil {
        print(FuzzTarget.all.map { "\($0.name) \($0.maxLength)" }.joined(separator: "\n"))
        exit(0)
    }
    guard let target = fuzzTarget else {
        FileHandle.standardError.write(Data("FUZZ_TARGET must be one of \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    if let directory = ProcessInfo.processInfo.environment["FUZZ_WRITE_SEEDS"] {
        for (index, seed) in target.seeds().enumerated() {
            FileManager.default.createFile(atPath: "\(directory)/seed-\(index)", contents: Data(seed))
        }
        exit(0)
    }
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    fuzzTarget?.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}
