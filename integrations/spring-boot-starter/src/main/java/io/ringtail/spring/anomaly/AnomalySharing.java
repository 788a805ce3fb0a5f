package io.ringtail.spring.anomaly;

import io.ringtail.WindowSnapshot;
import io.ringtail.alert.AlertMonitor;
import io.ringtail.alert.RuleSnapshot;
import io.ringtail.keyed.KeyedWindows;
import java.util.Map;

/**
 * How {@link EndpointAnomalies} reads the endpoints of one kind of window, who evaluates each, and
 * where the evaluations' states are shared: in-process ({@link #IN_PROCESS}), this instance reads
 * and evaluates all of them; fleet-wide ({@link FleetAnomalySharing}), each endpoint is evaluated
 * by one instance and its states posted for the others, as {@link Posted} text.
 */
interface AnomalySharing {
  /** Reads and evaluates everything, shares nothing: windows this instance holds itself. */
  AnomalySharing IN_PROCESS =
      new AnomalySharing() {
        @Override
        public Map<String, ? extends WindowSnapshot> read(KeyedWindows keyed) {
          return keyed.snapshots();
        }

        @Override
        public boolean evaluates(KeyedWindows keyed, String key) {
          return true;
        }

        @Override
        public void post(String observation, Map<String, String> states) {}

        @Override
        public Map<String, String> posted(String observation) {
          return Map.of();
        }
      };

  /** Every key's numbers in the window now. */
  Map<String, ? extends WindowSnapshot> read(KeyedWindows keyed);

  /**
   * Whether this instance evaluates the endpoint whose first key in {@code keyed} is {@code key}.
   */
  boolean evaluates(KeyedWindows keyed, String key);

  /** Posts the states of the measures this instance evaluated, {@link Posted#encode encoded}. */
  void post(String observation, Map<String, String> states);

  /** The states posted by the instances that evaluate {@code observation}'s endpoints. */
  Map<String, String> posted(String observation);

  /**
   * One endpoint measure's state as the instance that evaluates it posts it: its rule's state in
   * the alert monitor, whether that instance paged the fire, and how many evaluations had data. The
   * text is seven fields: measured value, baseline, score, fired value, firing (1 or 0), paged (1
   * or 0), evaluations.
   */
  record Posted(RuleSnapshot rule, boolean paged, long evaluations) {
    /** Nothing posted yet for the rule named {@code rule}. */
    static Posted none(String rule) {
      return new Posted(
          new RuleSnapshot(
              rule, AlertMonitor.State.OK, Double.NaN, Double.NaN, Double.NaN, Double.NaN),
          false,
          0);
    }

    String encode() {
      return rule.measured()
          + " "
          + rule.baseline()
          + " "
          + rule.value()
          + " "
          + rule.firedValue()
          + " "
          + (rule.firing() ? 1 : 0)
          + " "
          + (paged ? 1 : 0)
          + " "
          + evaluations;
    }

    /** The state posted for the rule named {@code rule}; {@link #none} if missing or unreadable. */
    static Posted decode(String rule, String text) {
      String[] f = text == null ? null : text.split(" ");
      if (f == null || f.length != 7) {
        return none(rule);
      }
      try {
        return new Posted(
            new RuleSnapshot(
                rule,
                f[4].equals("1") ? AlertMonitor.State.FIRING : AlertMonitor.State.OK,
                Double.parseDouble(f[2]),
                Double.parseDouble(f[0]),
                Double.parseDouble(f[1]),
                Double.parseDouble(f[3])),
            f[5].equals("1"),
            Long.parseLong(f[6]));
      } catch (NumberFormatException e) {
        return none(rule);
      }
    }
  }
}
