package io.ringtail.benchmarks.toolkit;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A child JVM a report started: its process, every line it printed so far, and a way to send it
 * lines. Thread-safe for one sender.
 */
public final class ChildJvm {
  /** The child process. */
  public final Process process;

  /** Every line the child printed to standard output so far (synchronize to iterate). */
  public final List<String> lines = Collections.synchronizedList(new ArrayList<>());

  private final Writer in;

  /** Starts {@code command}; its standard error goes to this JVM's. */
  public ChildJvm(List<String> command) throws java.io.IOException {
    process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = r.readLine()) != null) {
                  lines.add(line);
                }
              } catch (java.io.IOException e) {
                // the child is gone
              }
            });
    reader.setDaemon(true);
    reader.start();
  }

  /** Waits until the child printed {@code line}, at most {@code seconds}. */
  public void await(String line, long seconds) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    while (!lines.contains(line)) {
      if (System.nanoTime() > deadline || !process.isAlive() && !lines.contains(line)) {
        throw new IllegalStateException("child did not say " + line + ": " + lines);
      }
      Thread.sleep(20);
    }
  }

  /** Sends the child one line. */
  public void say(String line) throws java.io.IOException {
    in.write(line + "\n");
    in.flush();
  }
}
