package io.ringtail.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class FlagsTest {
  @Test
  void parse_readsPairs_theLastOfARepeatedFlagWins() {
    Flags flags = Flags.parse(new String[] {"--a", "1", "--b", "x", "--a", "3"}, "--a", "--b");
    assertThat(flags.whole("--a", 0, 0, 10)).isEqualTo(3);
    assertThat(flags.string("--b")).contains("x");
  }

  @Test
  void getters_ofAFlagNotGiven_answerTheFallback() {
    Flags flags = Flags.parse(new String[0], "--a");
    assertThat(flags.whole("--a", 7, 0, 10)).isEqualTo(7);
    assertThat(flags.positive("--a", 9)).isEqualTo(9);
    assertThat(flags.string("--a")).isEmpty();
  }

  @Test
  void parse_help_anywhere_isHelpRequested() {
    assertThatThrownBy(() -> Flags.parse(new String[] {"--a", "1", "-h"}, "--a"))
        .isInstanceOf(Flags.HelpRequested.class);
    assertThatThrownBy(() -> Flags.parse(new String[] {"--help"}, "--a"))
        .isInstanceOf(Flags.HelpRequested.class);
  }

  @Test
  void parse_unknownFlag_orMissingValue_isRejectedNamingIt() {
    assertThatThrownBy(() -> Flags.parse(new String[] {"--c", "1"}, "--a", "--b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("unknown flag --c; flags: --a, --b");
    assertThatThrownBy(() -> Flags.parse(new String[] {"--a"}, "--a"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--a needs a value");
  }

  @Test
  void typedGetters_rejectBadValues_namingFlagAndValue() {
    Flags flags =
        Flags.parse(new String[] {"--n", "x", "--m", "11", "--p", "0"}, "--n", "--m", "--p");
    assertThatThrownBy(() -> flags.whole("--n", 0, 0, 10))
        .hasMessage("--n must be a whole number, but was x");
    assertThatThrownBy(() -> flags.whole("--m", 0, 0, 10))
        .hasMessage("--m must be between 0 and 10, but was 11");
    assertThatThrownBy(() -> flags.positive("--p", 1))
        .hasMessage("--p must be a positive whole number, but was 0");
    assertThatThrownBy(() -> flags.positive("--n", 1))
        .hasMessage("--n must be a positive whole number, but was x");
  }
}
