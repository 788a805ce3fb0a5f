package io.ringtail.micrometer;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.ringtail.ManualTimeSource;
import io.ringtail.RollingWindow;
import io.ringtail.WindowConfig;
import io.ringtail.WindowConventions;
import io.ringtail.WindowSnapshot;
import io.ringtail.testkit.CountingWindow;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A keyed binding whose windows cannot give snapshots (a Redis window during an outage) logs one
 * stack trace per outage, naming the window and the key's tags, not one per key per scrape.
 */
class SnapshotFailureLogTest {
  private final Logger logger = Logger.getLogger(WindowConventions.class.getName());
  private final List<LogRecord> records = new ArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };
  private Level level;

  @BeforeEach
  void capture() {
    level = logger.getLevel();
    logger.setLevel(Level.ALL);
    logger.addHandler(handler);
  }

  @AfterEach
  void release() {
    logger.removeHandler(handler);
    logger.setLevel(level);
  }

  /** A window whose snapshots fail while {@code down[0]}. */
  private static RollingWindow window(ManualTimeSource time, boolean[] down) {
    return new CountingWindow(RollingWindow.create(WindowConfig.defaults(), time)) {
      @Override
      public WindowSnapshot snapshot() {
        if (down[0]) {
          throw new IllegalStateException("Redis call timed out");
        }
        return super.snapshot();
      }
    };
  }

  private List<LogRecord> at(Level l) {
    return records.stream().filter(r -> r.getLevel().equals(l)).toList();
  }

  @Test
  void anOutage_logsOneWarningWithItsStackTrace_namingTheWindowAndKey_thenOneRecovery() {
    ManualTimeSource time = new ManualTimeSource();
    boolean[] down = {false};
    Map<String, RollingWindow> byRoute = new LinkedHashMap<>();
    byRoute.put("/orders/{id}", window(time, down));
    byRoute.put("/items/{id}/price", window(time, down));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    KeyedWindowMetrics.builder(byRoute, "http.server.requests")
        .keyTags(route -> Tags.of("uri", route))
        .build()
        .bindTo(registry);
    Runnable scrape =
        () -> {
          registry.find("ringtail.keyed.samples").gauges().forEach(g -> g.value());
          time.advance(Duration.ofSeconds(2)); // past the snapshot's maximum age
        };
    scrape.run();
    down[0] = true;
    for (int i = 0; i < 5; i++) {
      scrape.run();
    }
    assertThat(at(Level.WARNING)).hasSize(1);
    LogRecord warning = at(Level.WARNING).get(0);
    assertThat(warning.getMessage())
        .startsWith("window \"http.server.requests\" [uri=/orders/{id}] gave no snapshot")
        .doesNotContain("@");
    assertThat(warning.getThrown()).hasMessage("Redis call timed out");
    assertThat(at(Level.FINE)).hasSize(2 * 5 - 1); // the rest, at DEBUG
    assertThat(at(Level.INFO)).isEmpty();

    down[0] = false;
    scrape.run();
    scrape.run();
    assertThat(at(Level.INFO))
        .singleElement()
        .extracting(LogRecord::getMessage)
        .isEqualTo("window \"http.server.requests\" [uri=/orders/{id}] gives snapshots again");

    down[0] = true; // a second outage is logged again, once
    scrape.run();
    scrape.run();
    assertThat(at(Level.WARNING)).hasSize(2);
  }
}
