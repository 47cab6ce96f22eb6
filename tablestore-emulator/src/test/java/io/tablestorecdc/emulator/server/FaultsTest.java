package io.tablestorecdc.emulator.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class FaultsTest {

    private static boolean fails(Faults faults, String action) {
        try {
            faults.apply(action);
            return false;
        } catch (EmulatorError e) {
            return true;
        }
    }

    @Test
    void countedErrorHitsExactlyCountCallsOfItsAction() {
        Faults faults = new Faults();
        faults.add(Faults.Rule.error("PutRow", "OTSServerBusy", 503, 2));

        assertThat(fails(faults, "GetRow")).isFalse();
        assertThat(fails(faults, "PutRow")).isTrue();
        assertThat(fails(faults, "PutRow")).isTrue();
        assertThat(fails(faults, "PutRow")).isFalse();
    }

    @Test
    void injectedErrorCarriesCodeAndStatus() {
        Faults faults = new Faults();
        faults.add(
                Faults.ruleFromJson(
                        Json.parseObject(
                                "{\"api\":\"*\",\"error\":\"OTSTimeout\",\"status\":504}")));

        assertThatThrownBy(() -> faults.apply("tunnel/readrecords"))
                .isInstanceOfSatisfying(
                        EmulatorError.class,
                        e -> {
                            assertThat(e.code()).isEqualTo("OTSTimeout");
                            assertThat(e.httpStatus()).isEqualTo(504);
                        });
    }

    @Test
    void rateHitsAboutThatShareOfCalls() {
        Faults faults = new Faults();
        faults.add(
                Faults.ruleFromJson(
                        Map.of("api", "GetRow", "error", "OTSServerBusy", "rate", 0.3)));

        int hits = 0;
        for (int n = 0; n < 2000; n++) {
            hits += fails(faults, "GetRow") ? 1 : 0;
        }

        assertThat(hits).isBetween(450, 750);
    }

    @Test
    void batchSizeRulesAreReportedNotThrown() {
        Faults faults = new Faults();
        faults.add(
                Faults.ruleFromJson(
                        Json.parseObject(
                                "{\"api\":\"tunnel/readrecords\",\"batchSize\":7,\"count\":1}")));

        assertThat(fails(faults, "tunnel/readrecords")).isFalse();
        assertThat(faults.batchSize("tunnel/readrecords")).hasValue(7);
        assertThat(faults.batchSize("tunnel/readrecords")).isEmpty();
    }

    @Test
    void invalidRulesSayWhatToFix() {
        assertThatThrownBy(() -> Faults.ruleFromJson(Json.parseObject("{\"error\":\"X\"}")))
                .hasMessageContaining("\"api\"");
        assertThatThrownBy(
                        () -> Faults.ruleFromJson(Json.parseObject("{\"api\":\"a\",\"rate\":2}")))
                .hasMessageContaining("rate");
        assertThatThrownBy(
                        () -> Faults.ruleFromJson(Json.parseObject("{\"api\":\"a\",\"count\":0}")))
                .hasMessageContaining("count");
        assertThatThrownBy(
                        () ->
                                Faults.ruleFromJson(
                                        Json.parseObject("{\"api\":\"a\",\"status\":\"x\"}")))
                .hasMessageContaining("status");
    }

    @Test
    void clearRemovesEveryRule() {
        Faults faults = new Faults();
        faults.add(Faults.Rule.error("PutRow", "OTSServerBusy", 503, Faults.UNLIMITED));

        faults.clear();

        assertThat(fails(faults, "PutRow")).isFalse();
        assertThat(faults.rules()).isEmpty();
    }

    @Test
    void jsonFormRoundTrips() {
        Faults.Rule rule =
                Faults.ruleFromJson(
                        Json.parseObject(
                                "{\"api\":\"GetRange\",\"error\":\"OTSTimeout\",\"status\":504,\"count\":2,"
                                        + "\"rate\":0.5,\"latencyMs\":10,\"batchSize\":3}"));

        assertThat(Faults.ruleFromJson(Json.parseObject(Json.write(rule.toJson()))))
                .isEqualTo(rule);
    }
}
