package io.ringtail;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class WindowConventionsTest {

  @Test
  void defaults_areTheDocumentedOnes() {
    WindowConventions c = WindowConventions.defaults();
    assertThat(c.percentiles()).containsExactly(0.5, 0.95, 0.99);
    assertThat(c.maximumKeys()).isEqualTo(100);
    assertThat(c.failureLogInterval()).isEqualTo(Duration.ofMinutes(1));
    assertThat(WindowConventions.builder().build()).isEqualTo(c);
  }

  @Test
  void percentiles_areSortedDistinctFractions_andTheArrayIsNotShared() {
    WindowConventions c = WindowConventions.builder().percentiles(0.99, 0.5, 0.99, 0.0).build();
    assertThat(c.percentiles()).containsExactly(0.0, 0.5, 0.99);
    c.percentiles()[0] = 7;
    assertThat(c.percentiles()).containsExactly(0.0, 0.5, 0.99);
  }

  @Test
  void percentiles_outsideZeroToOne_tellTheRule() {
    assertThatThrownBy(() -> WindowConventions.requirePercentiles(0.5, 95))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was 95.0");
    assertThatThrownBy(() -> WindowConventions.requirePercentiles(99.9))
        .hasMessage(
            "percentiles must be fractions between 0 and 1 (0.999 for P99.9), but was 99.9");
    assertThatThrownBy(() -> WindowConventions.requirePercentiles(-0.1))
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was -0.1");
    assertThatThrownBy(() -> WindowConventions.requirePercentiles(Double.NaN))
        .hasMessage("percentiles must be fractions between 0 and 1 (0.95 for P95), but was NaN");
    assertThatThrownBy(() -> WindowConventions.requirePercentiles((double[]) null))
        .isInstanceOf(NullPointerException.class)
        .hasMessage("percentiles");
    double[] many = new double[WindowConventions.MAX_PERCENTILES + 1];
    for (int i = 0; i < many.length; i++) {
      many[i] = i / 100.0;
    }
    assertThatThrownBy(() -> WindowConventions.requirePercentiles(many))
        .hasMessage("percentiles must be at most 32 distinct values, but was 33");
    assertThatThrownBy(() -> WindowConventions.builder().percentiles(95).build())
        .hasMessageStartingWith("percentiles must be fractions between 0 and 1");
  }

  @Test
  void maximumKeys_isOneToTheLimit() {
    assertThat(WindowConventions.requireMaximumKeys(1)).isEqualTo(1);
    assertThat(WindowConventions.requireMaximumKeys(100_000)).isEqualTo(100_000);
    assertThatThrownBy(() -> WindowConventions.requireMaximumKeys(0))
        .hasMessage("maximumKeys must be between 1 and 100000, but was 0");
    assertThatThrownBy(() -> WindowConventions.builder().maximumKeys(100_001).build())
        .hasMessage("maximumKeys must be between 1 and 100000, but was 100001");
  }

  @Test
  void failureLogInterval_mustBePositive() {
    assertThatThrownBy(() -> WindowConventions.builder().failureLogInterval(Duration.ZERO).build())
        .hasMessage("failureLogInterval must be positive, but was PT0S");
    assertThatThrownBy(() -> WindowConventions.builder().failureLogInterval(null).build())
        .isInstanceOf(NullPointerException.class);
  }

  @Test
  void toBuilder_keepsEveryValue() {
    WindowConventions c =
        WindowConventions.builder()
            .percentiles(0.9)
            .maximumKeys(7)
            .failureLogInterval(Duration.ofSeconds(5))
            .build();
    assertThat(c.toBuilder().build()).isEqualTo(c).hasSameHashCodeAs(c);
    assertThat(c.toBuilder().maximumKeys(8).build().percentiles()).containsExactly(0.9);
  }

  @Test
  void percentileLabel_isMicrometersFormat() {
    assertThat(WindowConventions.percentileLabel(0.95)).isEqualTo("0.95");
    assertThat(WindowConventions.percentileLabel(0.5)).isEqualTo("0.5");
    assertThat(WindowConventions.percentileLabel(1)).isEqualTo("1");
    assertThat(WindowConventions.percentileLabel(0)).isEqualTo("0");
    assertThat(WindowConventions.percentileLabel(0.999)).isEqualTo("0.999");
    assertThat(WindowConventions.percentileLabel(0.12345678)).isEqualTo("0.123457");
  }

  @Test
  void percentileOf_isExactInDecimal() {
    assertThat(WindowConventions.percentileOf(0.29)).isEqualTo(29.0);
    assertThat(WindowConventions.percentileOf(0.999)).isEqualTo(99.9);
    assertThat(WindowConventions.percentileOf(1)).isEqualTo(100.0);
  }

  @Test
  void busiest_keepsTheMostSamples_andIncumbentsOnATie() {
    Map<String, Long> samples = new LinkedHashMap<>();
    samples.put("a", 5L);
    samples.put("b", 9L);
    samples.put("c", 1L);
    samples.put("d", 5L);
    Set<String> untied = WindowConventions.busiest(samples, 2, v -> v, k -> false).keySet();
    assertThat(untied).hasSize(2).contains("b").containsAnyOf("a", "d");
    assertThat(WindowConventions.busiest(samples, 2, v -> v, Set.of("a")::contains).keySet())
        .containsExactlyInAnyOrder("a", "b");
    assertThat(WindowConventions.busiest(samples, 2, v -> v, Set.of("d")::contains).keySet())
        .containsExactlyInAnyOrder("b", "d");
    assertThat(WindowConventions.busiest(samples, 4, v -> v, k -> false)).isSameAs(samples);
    assertThatThrownBy(() -> WindowConventions.busiest(samples, 0, v -> v, k -> false))
        .hasMessage("maximumKeys must be between 1 and 100000, but was 0");
  }

  @Test
  void failures_warnOncePerWindow_thenAtMostOncePerInterval_thenRecover() {
    Logger logger = Logger.getLogger(WindowConventions.class.getName());
    List<LogRecord> records = new ArrayList<>();
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord r) {
            records.add(r);
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    Level level = logger.getLevel();
    logger.setLevel(Level.ALL);
    logger.addHandler(handler);
    try {
      ManualTimeSource time = new ManualTimeSource();
      WindowFailures failures =
          WindowConventions.builder().failureLogInterval(Duration.ofSeconds(10)).build().failures();
      boolean[] down = {true};
      Runnable read =
          () ->
              assertThat(
                      failures.read(
                          "checkout",
                          "window \"checkout\"",
                          time,
                          () -> {
                            if (down[0]) {
                              throw new IllegalStateException("Redis call timed out");
                            }
                            return "snapshot";
                          }))
                  .isEqualTo(down[0] ? null : "snapshot");
      for (int i = 0; i < 5; i++) {
        read.run();
        time.advance(Duration.ofSeconds(1));
      }
      assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).hasSize(1);
      LogRecord first = records.get(0);
      assertThat(first.getMessage()).startsWith("window \"checkout\" gave no snapshot");
      assertThat(first.getMessage()).contains("at most once per PT10S");
      assertThat(first.getThrown()).hasMessage("Redis call timed out");
      assertThat(records).filteredOn(r -> r.getLevel() == Level.FINE).hasSize(4);

      time.advance(Duration.ofSeconds(5)); // 10 s after the first warning
      read.run();
      assertThat(records).filteredOn(r -> r.getLevel() == Level.WARNING).hasSize(2);
      assertThat(records.get(records.size() - 1).getMessage())
          .isEqualTo(
              "window \"checkout\" still gives no snapshot (5 failures since the last warning):"
                  + " java.lang.IllegalStateException: Redis call timed out");

      down[0] = false;
      read.run();
      read.run();
      assertThat(records)
          .filteredOn(r -> r.getLevel() == Level.INFO)
          .singleElement()
          .extracting(LogRecord::getMessage)
          .isEqualTo("window \"checkout\" gives snapshots again");
    } finally {
      logger.removeHandler(handler);
      logger.setLevel(level);
    }
  }
}
