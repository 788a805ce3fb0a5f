package io.ringtail.redis.testkit;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} process on a free 127.0.0.1 port, started from a generated config
 * with persistence off and DEBUG enabled, for tests. Never a mock.
 *
 * <p>The binary is {@code -Dringtail.redis.server=<path>} if set, else {@code redis-server} from
 * the PATH, else (or with {@code -Dringtail.redis.server=bundled}) the Linux/macOS binary bundled
 * in {@code org.signal:embedded-redis}, extracted to a temporary file. If none is found, {@link
 * #start} fails loudly: a Redis test never skips.
 *
 * <p>Fault helpers: {@link #pause()}/{@link #resume()} send SIGSTOP/SIGCONT (a hung server), {@link
 * #kill()} sends SIGKILL (a crash), {@link #restart()} starts a fresh empty server on the same
 * port. Not thread-safe; one test drives one process.
 *
 * <p>Part of the Redis test kit in this module's test-jar: the other modules' tests and the
 * benchmarks start their servers the way this module's tests do; not API.
 */
public final class RedisProcess implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
  private static Path binary;

  private final int port;
  private final boolean cluster;
  private final boolean sentinel;
  private final List<String> extraConf;
  private final Path dir;
  private Process process;

  private RedisProcess(int port, boolean cluster, boolean sentinel, List<String> extraConf)
      throws IOException {
    this.port = port;
    this.cluster = cluster;
    this.sentinel = sentinel;
    this.extraConf = List.copyOf(extraConf);
    this.dir = Files.createTempDirectory("ringtail-redis-" + port + "-");
  }

  /** Starts a standalone server on a free port. */
  public static RedisProcess start() {
    return start(freePort(false), false);
  }

  /** Starts a server on {@code port}, cluster-enabled or not. */
  public static RedisProcess start(int port, boolean cluster) {
    return start(port, cluster, false, List.of());
  }

  /**
   * Starts a server on {@code port} whose config ends with {@code extraConf} (for example {@code
   * replicaof}, TLS or ACL lines).
   */
  public static RedisProcess start(int port, List<String> extraConf) {
    return start(port, false, false, extraConf);
  }

  /**
   * Starts a Sentinel ({@code redis-server <conf> --sentinel}, the same binary) on {@code port}
   * whose config ends with {@code sentinelConf} ({@code sentinel monitor ...} and its options).
   */
  public static RedisProcess startSentinel(int port, List<String> sentinelConf) {
    return start(port, false, true, sentinelConf);
  }

  private static RedisProcess start(
      int port, boolean cluster, boolean sentinel, List<String> extraConf) {
    try {
      RedisProcess p = new RedisProcess(port, cluster, sentinel, extraConf);
      p.launch();
      return p;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return port;
  }

  public long pid() {
    return process.pid();
  }

  /** Whether the process runs (not killed, not exited). */
  public boolean isAlive() {
    return process.isAlive();
  }

  /** The server's log so far (its logfile and stdout). */
  public String log() {
    try {
      return Files.readString(dir.resolve("redis.log"))
          + Files.readString(dir.resolve("stdout.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  public RedisURI uri() {
    return RedisURI.builder()
        .withHost("127.0.0.1")
        .withPort(port)
        .withTimeout(Duration.ofSeconds(5))
        .build();
  }

  /** SIGSTOP: the server keeps its socket but answers nothing. */
  public void pause() {
    signal("STOP");
  }

  /** SIGCONT after {@link #pause()}. */
  public void resume() {
    signal("CONT");
  }

  /** SIGKILL, and waits until the process is gone. */
  public void kill() {
    process.destroyForcibly();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        throw new IllegalStateException("redis-server " + port + " survived SIGKILL");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Starts a fresh (empty, persistence is off) server on the same port after {@link #kill()}. */
  public void restart() {
    if (process.isAlive()) {
      kill();
    }
    try {
      launch();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      signal("CONT");
      kill();
    }
  }

  private void signal(String name) {
    try {
      Process kill =
          new ProcessBuilder("kill", "-" + name, Long.toString(process.pid()))
              .redirectErrorStream(true)
              .start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private void launch() throws IOException {
    List<String> conf =
        new ArrayList<>(
            List.of(
                "port " + port,
                "bind 127.0.0.1",
                "daemonize no",
                "dir " + dir,
                "logfile " + dir.resolve("redis.log")));
    if (!sentinel) {
      conf.addAll(
          List.of(
              "save \"\"",
              "appendonly no",
              "enable-debug-command local",
              "repl-diskless-sync yes",
              "repl-diskless-sync-delay 0"));
    }
    if (cluster) {
      conf.add("cluster-enabled yes");
      conf.add("cluster-config-file " + dir.resolve("nodes.conf"));
      conf.add("cluster-node-timeout 2000");
    }
    conf.addAll(extraConf);
    Files.deleteIfExists(dir.resolve("nodes.conf"));
    Path confFile = dir.resolve("redis.conf");
    Files.write(confFile, conf, StandardCharsets.UTF_8);
    List<String> command = new ArrayList<>(List.of(binary().toString(), confFile.toString()));
    if (sentinel) {
      command.add("--sentinel");
    }
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("stdout.log").toFile())
            .start();
    awaitPing();
  }

  private void awaitPing() {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    RedisClient client = RedisClient.create();
    try {
      while (true) {
        if (!process.isAlive()) {
          throw new IllegalStateException("redis-server on port " + port + " exited: " + log());
        }
        try (StatefulRedisConnection<String, String> c = client.connect(uri())) {
          if ("PONG".equals(c.sync().ping())) {
            return;
          }
        } catch (RuntimeException notYet) {
          if (System.nanoTime() > deadline) {
            throw new IllegalStateException(
                "redis-server on port " + port + " not up: " + log(), notYet);
          }
        }
        pollPause();
      }
    } finally {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
  }

  public static void pollPause() {
    try {
      Thread.sleep(20);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** A port that is free now (and, for a cluster node, whose bus port + 10000 is free too). */
  public static int freePort(boolean clusterBus) {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = ThreadLocalRandom.current().nextInt(20_000, 45_000);
      if (isFree(port) && (!clusterBus || isFree(port + 10_000))) {
        return port;
      }
    }
    throw new IllegalStateException("no free port found");
  }

  private static boolean isFree(int port) {
    try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
      s.setReuseAddress(true);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  static synchronized Path binary() throws IOException {
    if (binary != null) {
      return binary;
    }
    String configured = System.getProperty("ringtail.redis.server");
    if ("bundled".equals(configured)) {
      return binary = extractBundled();
    }
    if (configured != null && !configured.isBlank()) {
      return binary = Path.of(configured);
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
      Path candidate = Path.of(dir, "redis-server");
      if (!dir.isEmpty() && Files.isExecutable(candidate)) {
        return binary = candidate;
      }
    }
    return binary = extractBundled();
  }

  private static Path extractBundled() throws IOException {
    String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
    String osName = os.contains("mac") ? "darwin" : os.contains("linux") ? "linux" : null;
    String archName =
        arch.equals("amd64") || arch.equals("x86_64")
            ? "amd64"
            : arch.equals("aarch64") || arch.equals("arm64") ? "arm64" : null;
    if (osName == null || archName == null) {
      throw new IllegalStateException(
          "No redis-server on PATH and no bundled binary for "
              + os
              + "/"
              + arch
              + ": install Redis 7 or set -Dringtail.redis.server");
    }
    String resource = "/redis-server-7.0.15-" + osName + "-" + archName;
    try (InputStream in = RedisProcess.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(
            "No redis-server on PATH and "
                + resource
                + " missing from org.signal:embedded-redis: install Redis 7");
      }
      Path target = Files.createTempFile("ringtail-redis-server-", "");
      Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
      if (!target.toFile().setExecutable(true)) {
        throw new IllegalStateException("cannot make " + target + " executable");
      }
      target.toFile().deleteOnExit();
      return target;
    }
  }
}
