package io.tablestorecdc.flink.source.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.settings.SourceOption;
import io.tablestorecdc.checkpoint.settings.TunnelCreation;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.description.BlockElement;
import org.apache.flink.configuration.description.Description;
import org.apache.flink.configuration.description.TextElement;
import org.junit.jupiter.api.Test;

class TablestoreCdcOptionsTest {

    @Test
    void keysAreTheSparkSourcesAndEveryOptionIsDescribed() throws Exception {
        List<String> keys = new ArrayList<>();
        for (Field field : TablestoreCdcOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigOption.class) {
                ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                keys.add(option.key());
                assertThat(text(option.description())).as(option.key()).isNotBlank();
            }
        }
        assertThat(keys)
                .contains(
                        "endpoint",
                        "instance.name",
                        "access.key.id",
                        "access.key.secret",
                        "sts.token",
                        "table.name",
                        "tunnel.name",
                        "tunnel.create",
                        "tunnel.start",
                        "meta.table",
                        "skip.invalid.data",
                        "ignore.delete")
                .doesNotHaveDuplicates();
    }

    @Test
    void sharedOptionsAreTheCoresKeysDefaultsAndDescriptions() throws Exception {
        Map<String, ConfigOption<?>> byKey = new HashMap<>();
        for (Field field : TablestoreCdcOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigOption.class) {
                ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                byKey.put(option.key(), option);
            }
        }
        for (SourceOption shared : SourceOption.values()) {
            ConfigOption<?> option = byKey.get(shared.key());
            assertThat(option).as(shared.key()).isNotNull();
            assertThat(text(option.description())).as(shared.key()).isEqualTo(shared.description());
            assertThat(Optional.ofNullable(option.defaultValue()).map(String::valueOf))
                    .as(shared.key())
                    .isEqualTo(shared.defaultValue());
        }
    }

    @Test
    void tunnelCreationParsesCodesAndNamesTheChoices() {
        assertThat(TunnelCreation.fromCode("Base-And-Stream").tunnelType())
                .contains(TunnelType.BASE_AND_STREAM);
        assertThat(TunnelCreation.fromCode("none").tunnelType()).isEmpty();
        assertThatThrownBy(() -> TunnelCreation.fromCode("full"))
                .hasMessage(
                        "Option 'tunnel.create' has invalid value 'full': use none (default),"
                                + " stream, base or base-and-stream");
    }

    @Test
    void startPositionParsesLatestEarliestAndInstants() {
        assertThat(StartPosition.parse("LATEST").toTunnelStart()).isEqualTo(TunnelStart.latest());
        assertThat(StartPosition.parse("earliest").toTunnelStart())
                .isEqualTo(TunnelStart.earliest());
        Instant at = Instant.parse("2026-01-31T08:00:00Z");
        assertThat(StartPosition.parse("2026-01-31T08:00:00Z").toTunnelStart())
                .isEqualTo(TunnelStart.at(at));
        assertThat(StartPosition.parse(StartPosition.at(at).toString()))
                .isEqualTo(StartPosition.at(at));
        assertThatThrownBy(() -> StartPosition.parse("yesterday"))
                .hasMessage(
                        "Option 'tunnel.start' has invalid value 'yesterday': use latest"
                                + " (default), earliest or an ISO-8601 instant such as"
                                + " 2024-05-01T00:00:00Z");
    }

    @Test
    void stopAtParsesInstantsAndNamesTheOptionOnError() {
        assertThat(TablestoreCdcOptions.parseStopAt(" 2026-01-31T08:00:00Z "))
                .isEqualTo(Instant.parse("2026-01-31T08:00:00Z"));
        assertThatThrownBy(() -> TablestoreCdcOptions.parseStopAt("tomorrow"))
                .hasMessage(
                        "Option 'scan.bounded.stop-at' has invalid value 'tomorrow': use an"
                                + " ISO-8601 instant such as 2026-01-31T08:00:00Z");
    }

    /** The plain text of a description built by {@code withDescription(String)}. */
    private static String text(Description description) {
        StringBuilder text = new StringBuilder();
        for (BlockElement block : description.getBlocks()) {
            text.append(((TextElement) block).getFormat());
        }
        return text.toString();
    }
}
