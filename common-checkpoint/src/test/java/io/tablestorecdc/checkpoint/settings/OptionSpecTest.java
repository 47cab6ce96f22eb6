package io.tablestorecdc.checkpoint.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.merge.ServerAheadPolicy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OptionSpecTest {

    @Test
    void theTypeColumnNamesTheBoundsAndTheChoices() {
        assertThat(SourceOption.META_RETENTION_BATCHES.spec().typeText())
                .isEqualTo("Integer (>= 2)");
        assertThat(SourceOption.META_FULL_SNAPSHOT_EVERY.spec().typeText())
                .isEqualTo("Integer (1 to 1000000)");
        assertThat(SourceOption.TUNNEL_CREATE.spec().typeText())
                .isEqualTo("Enum (none, stream, base, base-and-stream)");
        assertThat(SourceOption.TABLE_DISCOVERY_INTERVAL.spec().typeText()).isEqualTo("Duration");
        assertThat(OptionSpec.key("x.y").durationType(false).description("d").typeText())
                .isEqualTo("Duration (> 0)");
        assertThat(OptionSpec.key("x.y").longType(1, Long.MAX_VALUE).description("d").typeText())
                .isEqualTo("Long (>= 1)");
        assertThat(SourceOption.ENDPOINT.spec().typeText()).isEqualTo("String");
        assertThat(SourceOption.IGNORE_DELETE.spec().typeText()).isEqualTo("Boolean");
    }

    @Test
    void requiredSaysWhenAndSecretsAreMarked() {
        assertThat(SourceOption.ENDPOINT.spec().requiredText()).isEqualTo("yes");
        assertThat(SourceOption.TABLE_NAME.spec().requiredText())
                .isEqualTo("unless `table.pattern`");
        assertThat(SourceOption.TABLE_NAME.required()).isFalse();
        assertThat(SourceOption.META_TABLE.spec().requiredText()).isEqualTo("no");
        assertThat(SourceOption.ACCESS_KEY_SECRET.secret()).isTrue();
    }

    @Test
    void aDeclarationThatCannotBeRightIsRefused() {
        assertThatThrownBy(() -> OptionSpec.key("Tunnel_Name"))
                .hasMessageContaining("dotted lower case");
        assertThatThrownBy(
                        () ->
                                OptionSpec.key("on.server.ahead")
                                        .enumType(ServerAheadPolicy.class)
                                        .defaultValue("ignore")
                                        .description("d"))
                .hasMessageContaining("default 'ignore' is not a choice");
    }

    @Test
    void everyDeclaredDefaultIsAValueItsOptionAccepts() {
        Map<String, String> defaults = new HashMap<>();
        for (SourceOption option : SourceOption.values()) {
            option.defaultValue().ifPresent(d -> defaults.put(option.key(), d));
        }
        OptionValues values = new OptionValues(defaults, key -> "set " + key);
        for (SourceOption option : SourceOption.values()) {
            OptionSpec spec = option.spec();
            if (spec.defaultValue().isEmpty()) {
                continue;
            }
            switch (spec.type()) {
                case BOOLEAN -> values.bool(spec);
                case INTEGER, LONG -> values.wholeNumber(spec, 0);
                case DURATION -> values.duration(spec);
                case ENUM -> assertThat(spec.choices()).contains(spec.defaultValue().get());
                case STRING -> assertThat(spec.defaultValue().get()).isNotBlank();
            }
        }
        assertThat(values.problems()).isEmpty();
        assertThat(values.duration(SourceOption.TABLE_DISCOVERY_INTERVAL.spec()))
                .isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void readingAgainstADeclarationKeepsItsBoundsAndWording() {
        OptionValues values =
                new OptionValues(
                        Map.of(
                                "meta.retention.batches", "1",
                                "on.server.ahead", "Skip",
                                "tunnel.create", " BASE-AND-STREAM ",
                                "table.discovery.interval", "-1s"),
                        key -> "set " + key);
        values.wholeNumber(SourceOption.META_RETENTION_BATCHES.spec(), 0);
        assertThat(values.choice(SourceOption.ON_SERVER_AHEAD.spec(), ServerAheadPolicy.class))
                .isEqualTo(ServerAheadPolicy.SKIP);
        assertThat(values.choice(SourceOption.TUNNEL_CREATE.spec(), TunnelCreation.class))
                .isEqualTo(TunnelCreation.BASE_AND_STREAM);
        values.duration(SourceOption.TABLE_DISCOVERY_INTERVAL.spec());
        assertThat(values.problems())
                .containsExactly(
                        "Option 'meta.retention.batches' has invalid value '1': use a whole number"
                                + " >= 2",
                        "Option 'table.discovery.interval' has invalid value '-1s': use a duration"
                                + " of zero or more such as 0s, 500ms, 5s or PT5S");
    }

    @Test
    void aSourceThatSpellsItsOptionsOtherwiseKeepsTheDeclarationButTheText() {
        OptionSpec spec = SourceOption.TABLE_DISCOVERY_INTERVAL.spec();
        OptionSpec renamed = spec.withDescription("With `tables`: ...");
        assertThat(renamed.key()).isEqualTo(spec.key());
        assertThat(renamed.typeText()).isEqualTo(spec.typeText());
        assertThat(renamed.defaultValue()).isEqualTo(spec.defaultValue());
        assertThat(renamed.description()).isEqualTo("With `tables`: ...");
        assertThat(renamed).isNotEqualTo(spec);
    }
}
