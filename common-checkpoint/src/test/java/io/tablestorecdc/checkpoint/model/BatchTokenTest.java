package io.tablestorecdc.checkpoint.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class BatchTokenTest {

    @Test
    void stringFormRoundTrips() {
        BatchToken token = BatchToken.random();
        assertThat(BatchToken.parse(token.toString())).isEqualTo(token);
    }

    @Test
    void jsonFormRoundTripsAndCarriesItsVersion() {
        BatchToken token = BatchToken.random();
        assertThat(token.toJson()).contains("\"version\":1");
        assertThat(BatchToken.fromJson(token.toJson())).isEqualTo(token);
        assertThat(BatchToken.fromJson(" { \"token\" : \"" + token + "\" , \"version\" : 1 } "))
                .isEqualTo(token);
    }

    @Test
    void freshTokensDiffer() {
        assertThat(BatchToken.random()).isNotEqualTo(BatchToken.random());
    }

    @Test
    void malformedStringNamesWhatIsValid() {
        assertThatThrownBy(() -> BatchToken.parse("batch-7"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Invalid batch token 'batch-7'")
                .hasMessageContaining("expected a UUID such as");
        assertThatThrownBy(() -> BatchToken.parse(null)).hasMessageContaining("'null'");
    }

    @Test
    void malformedJsonNamesWhatIsValid() {
        assertThatThrownBy(() -> BatchToken.fromJson("{\"token\":42}"))
                .hasMessageContaining("Invalid batch token JSON")
                .hasMessageContaining("{\"token\":\"");
    }

    @Test
    void unknownVersionIsRefusedWithTheFix() {
        String json = "{\"token\":\"" + BatchToken.random() + "\",\"version\":2}";
        assertThatThrownBy(() -> BatchToken.fromJson(json))
                .hasMessageContaining("version 2")
                .hasMessageContaining("upgrade the connector");
    }

    @Test
    void longGarbageIsAbbreviatedInTheMessage() {
        String garbage = "x".repeat(500);
        assertThatThrownBy(() -> BatchToken.parse(garbage))
                .satisfies(e -> assertThat(e.getMessage()).hasSizeLessThan(300));
    }
}
