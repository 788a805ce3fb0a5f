package io.ringtail.benchmarks.report;

import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * The share of a flight recording's execution samples (of the threads a predicate picks) with at
 * least one frame of each named group of classes: where those threads' CPU time went, inlined
 * frames included. Shares of one recording compare with each other; a sample can count in several
 * groups (a caller and what it calls).
 */
final class ProfileShares {
  /** The samples counted, and per group how many of them had one of its frames. */
  record Shares(long samples, Map<String, Long> byGroup) {
    /** The share of {@code group}'s samples, a fraction (NaN without samples). */
    double share(String group) {
      return samples == 0 ? Double.NaN : (double) byGroup.get(group) / samples;
    }
  }

  private ProfileShares() {}

  /**
   * The shares in {@code recording} of the samples of threads whose name {@code threads} accepts,
   * per group (its name, and the predicate on a frame's class name).
   */
  static Shares of(Path recording, Predicate<String> threads, Map<String, Predicate<String>> groups)
      throws IOException {
    Map<String, Long> counts = new LinkedHashMap<>();
    groups.keySet().forEach(g -> counts.put(g, 0L));
    long samples = 0;
    try (RecordingFile file = new RecordingFile(recording)) {
      while (file.hasMoreEvents()) {
        RecordedEvent e = file.readEvent();
        if (!e.getEventType().getName().equals("jdk.ExecutionSample")) {
          continue;
        }
        RecordedThread thread = e.getThread("sampledThread");
        RecordedStackTrace stack = e.getStackTrace();
        if (thread == null
            || thread.getJavaName() == null
            || stack == null
            || !threads.test(thread.getJavaName())) {
          continue;
        }
        samples++;
        List<RecordedFrame> frames = stack.getFrames();
        for (Map.Entry<String, Predicate<String>> g : groups.entrySet()) {
          for (RecordedFrame f : frames) {
            if (f.isJavaFrame() && g.getValue().test(f.getMethod().getType().getName())) {
              counts.merge(g.getKey(), 1L, Long::sum);
              break;
            }
          }
        }
      }
    }
    return new Shares(samples, counts);
  }

  /**
   * A recording configuration with only the execution sampler on, every {@code periodMillis}: the
   * text of a {@code .jfc} file.
   */
  static String samplerSettings(int periodMillis) {
    return """
        <?xml version="1.0" encoding="UTF-8"?>
        <configuration version="2.0" label="execution samples">
          <event name="jdk.ExecutionSample">
            <setting name="enabled">true</setting>
            <setting name="period">%d ms</setting>
          </event>
        </configuration>
        """
        .formatted(periodMillis);
  }
}
