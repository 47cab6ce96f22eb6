package io.tablestorecdc.flink.source.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tablestorecdc.checkpoint.model.TunnelType;
import io.tablestorecdc.checkpoint.tunnel.TunnelStart;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.configuration.ConfigOption;
import org.junit.jupiter.api.Test;

class TablestoreCdcOptionsTest {

    @Test
    void keysAreTheSparkSourcesAndEveryOptionIsDescribed() throws Exception {
        List<String> keys = new ArrayList<>();
        for (Field field : TablestoreCdcOptions.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == ConfigOption.class) {
                ConfigOption<?> option = (ConfigOption<?>) field.get(null);
                keys.add(option.key());
                assertThat(option.description().toString()).as(option.key()).isNotBlank();
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
    void tunnelCreationParsesCodesAndNamesTheChoices() {
        assertThat(TunnelCreation.fromCode("Base-And-Stream").tunnelType())
                .contains(TunnelType.BASE_AND_STREAM);
        assertThat(TunnelCreation.fromCode("none").tunnelType()).isEmpty();
        assertThatThrownBy(() -> TunnelCreation.fromCode("full"))
                .hasMessageContaining("Invalid tunnel.create 'full'")
                .hasMessageContaining("none, stream, base, base-and-stream");
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
                .hasMessageContaining("Invalid tunnel.start 'yesterday'")
                .hasMessageContaining("ISO-8601");
    }

    @Test
    void stopAtParsesInstantsAndNamesTheOptionOnError() {
        assertThat(TablestoreCdcOptions.parseStopAt(" 2026-01-31T08:00:00Z "))
                .isEqualTo(Instant.parse("2026-01-31T08:00:00Z"));
        assertThatThrownBy(() -> TablestoreCdcOptions.parseStopAt("tomorrow"))
                .hasMessageContaining("Invalid scan.bounded.stop-at 'tomorrow'")
                .hasMessageContaining("ISO-8601");
    }
}
