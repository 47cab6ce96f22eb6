package io.tablestorecdc.checkpoint.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import io.tablestorecdc.checkpoint.merge.VanishedChannelPolicy;
import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The parsers of single values, which both engines call. */
class OptionParsersTest {

    @Test
    void tunnelCreationAcceptsEachCodeInAnyCase() {
        for (TunnelCreation c : TunnelCreation.values()) {
            assertThat(TunnelCreation.fromCode(" " + c.code().toUpperCase() + " ")).isEqualTo(c);
        }
        assertThat(TunnelCreation.fromCode("base").tunnelType()).contains(TunnelType.BASE_DATA);
        assertThat(TunnelCreation.fromCode("none").tunnelType()).isEmpty();
        assertThat(TunnelCreation.values())
                .filteredOn(TunnelCreation::createsStream)
                .containsExactly(TunnelCreation.STREAM, TunnelCreation.BASE_AND_STREAM);
        assertThatThrownBy(() -> TunnelCreation.fromCode("full"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Option 'tunnel.create' has invalid value 'full': use none (default),"
                                + " stream, base or base-and-stream");
    }

    @Test
    void aPolicyOptionIsAnyOfItsConstantsInAnyCaseAndAnErrorListsThemDefaultFirst() {
        assertThat(
                        OptionValues.choiceOf(
                                "on.vanished.channel", " WARN ", VanishedChannelPolicy.FAIL))
                .isEqualTo(VanishedChannelPolicy.WARN);
        assertThat(OptionValues.choiceOf("on.server.ahead", "skip", ServerAheadPolicy.FAIL))
                .isEqualTo(ServerAheadPolicy.SKIP);
        assertThatThrownBy(
                        () ->
                                OptionValues.choiceOf(
                                        "on.vanished.channel", "skip", VanishedChannelPolicy.FAIL))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Option 'on.vanished.channel' has invalid value 'skip': use fail (default)"
                                + " or warn");
        OptionValues values =
                new OptionValues(Map.of("on.server.ahead", "ignore"), key -> "set " + key);
        assertThat(values.choice("on.server.ahead", ServerAheadPolicy.FAIL))
                .isEqualTo(ServerAheadPolicy.FAIL);
        assertThat(values.problems())
                .containsExactly(
                        "Option 'on.server.ahead' has invalid value 'ignore': use fail (default)"
                                + " or skip");
    }

    @Test
    void tunnelStartAcceptsKeywordsAndInstantsAndReadsItsOwnText() {
        Instant at = Instant.parse("2026-01-31T08:00:00Z");
        assertThat(TunnelStartText.parse("LATEST")).isEqualTo(TunnelStart.latest());
        assertThat(TunnelStartText.parse(" earliest ")).isEqualTo(TunnelStart.earliest());
        assertThat(TunnelStartText.parse("2026-01-31T08:00:00Z")).isEqualTo(TunnelStart.at(at));
        for (TunnelStart start :
                new TunnelStart[] {
                    TunnelStart.latest(), TunnelStart.earliest(), TunnelStart.at(at)
                }) {
            assertThat(TunnelStartText.parse(TunnelStartText.format(start))).isEqualTo(start);
        }
        assertThatThrownBy(() -> TunnelStartText.parse("2026-01-31"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "Option 'tunnel.start' has invalid value '2026-01-31': use latest"
                                + " (default), earliest or an ISO-8601 instant such as"
                                + " 2024-05-01T00:00:00Z");
    }

    @Test
    void wholeNumbersDurationsAndBooleansNameTheRange() {
        OptionValues values =
                new OptionValues(
                        Map.of(
                                "n", "0",
                                "m", "ten",
                                "r", "1",
                                "d", "soon",
                                "z", "0s",
                                "b", "yes"),
                        key -> "");
        assertThat(values.wholeNumber("n", 7, 1, Long.MAX_VALUE)).isEqualTo(7);
        assertThat(values.wholeNumber("m", 7, 1, Long.MAX_VALUE)).isEqualTo(7);
        assertThat(values.wholeNumber("r", 7, 2, 9)).isEqualTo(7);
        assertThat(values.positiveDuration("d", Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(values.positiveDuration("z", Duration.ofSeconds(1)))
                .isEqualTo(Duration.ofSeconds(1));
        assertThat(values.bool("b", true)).isTrue();
        assertThat(values.wholeNumber("unset", 3, 1, 9)).isEqualTo(3);

        assertThat(values.problems())
                .containsExactly(
                        "Option 'n' has invalid value '0': use a whole number >= 1",
                        "Option 'm' has invalid value 'ten': use a whole number >= 1",
                        "Option 'r' has invalid value '1': use a whole number from 2 to 9",
                        "Option 'd' has invalid value 'soon': use a positive duration such as"
                                + " 500ms, 10s, 2m or PT10S",
                        "Option 'z' has invalid value '0s': use a positive duration such as"
                                + " 500ms, 10s, 2m or PT10S",
                        "Option 'b' has invalid value 'yes': use true (default) or false");
    }

    @Test
    void goodValuesAreReadWithoutProblems() {
        OptionValues values =
                new OptionValues(Map.of("n", " 42 ", "d", "1500ms", "b", "False"), key -> "");
        assertThat(values.wholeNumber("n", 7, 1, 100)).isEqualTo(42);
        assertThat(values.positiveDuration("d", Duration.ZERO)).isEqualTo(Duration.ofMillis(1500));
        assertThat(values.bool("b", true)).isFalse();
        assertThat(values.hasProblems()).isFalse();
    }

    @Test
    void durationsInShortAndIsoForm() {
        assertThat(OptionValues.parseDuration("250ms")).contains(Duration.ofMillis(250));
        assertThat(OptionValues.parseDuration("30s")).contains(Duration.ofSeconds(30));
        assertThat(OptionValues.parseDuration("2 min")).contains(Duration.ofMinutes(2));
        assertThat(OptionValues.parseDuration("1h")).contains(Duration.ofHours(1));
        assertThat(OptionValues.parseDuration("PT5S")).contains(Duration.ofSeconds(5));
        assertThat(OptionValues.parseDuration("5 parsecs")).isEmpty();
    }
}
