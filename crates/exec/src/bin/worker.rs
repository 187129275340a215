//! `ferrosuite-worker`: one worker process of the execution host (started by the master; not
//! meant to be run by hand).

#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    ferrosuite_exec::worker::worker_main()
}
