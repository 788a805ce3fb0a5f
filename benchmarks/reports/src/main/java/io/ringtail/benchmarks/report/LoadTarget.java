package io.ringtail.benchmarks.report;

import io.ringtail.benchmarks.toolkit.ChildJvm;
import io.ringtail.benchmarks.toolkit.Machine;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The examples' load target ({@code LoadTargetApplication}) as the service reports run it: a JVM of
 * its own on a free port, pinned to its CPUs, serving before it is returned. Closing stops it.
 */
record LoadTarget(ChildJvm app, int port) implements AutoCloseable {

  /** The options of the reports that load it. */
  static final class Options {
    @Option(
        names = "--app-classpath",
        required = true,
        description = "The load target's classpath.")
    String appClasspath;

    @Option(names = "--load-threads", description = "wrk's threads (-t), with wrk as the load.")
    int loadThreads = 2;

    @Option(names = "--connections", description = "Concurrent connections (Java: a thread each).")
    int connections = 16;

    @Option(names = "--app-cpus", description = "CPUs the application is pinned to (taskset).")
    String appCpus = "0";
  }

  /**
   * Starts the load target with {@code arguments} (its configuration) and waits until it serves.
   */
  static LoadTarget start(Options options, List<String> arguments) throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    List<String> command =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx512m",
                "-cp",
                options.appClasspath,
                "io.ringtail.examples.load.LoadTargetApplication",
                "--server.port=" + port,
                "--spring.main.banner-mode=off",
                "--logging.level.root=WARN"));
    command.addAll(arguments);
    LoadTarget target = new LoadTarget(new ChildJvm(command), port);
    try {
      Machine.pin(target.app.process.pid(), options.appCpus);
      HttpLoad.awaitServing(target.app, port, Duration.ofSeconds(120));
      return target;
    } catch (Exception | Error e) {
      target.close();
      throw e;
    }
  }

  /** The load target's process id. */
  long pid() {
    return app.process.pid();
  }

  @Override
  public void close() {
    app.process.destroy();
    try {
      app.process.waitFor();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
