package io.tablestorecdc.emulator.tunnel;

import static org.assertj.core.api.Assertions.assertThat;

import com.alicloud.openservices.tablestore.core.protocol.TunnelServiceApi;
import com.alicloud.openservices.tablestore.tunnel.pipeline.Utils;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class ChannelTokenTest {

    @Test
    void theSdkRecognisesStreamTokensAsStreamTokens() throws Exception {
        String token = ChannelToken.stream("p-3", 42, 1_700_000_000_000_000_000L).encode();

        assertThat(Utils.isStreamToken(token)).isTrue();
        assertThat(Utils.parseRequestToken(token).getIterator()).isEqualTo("stream:p-3:42");
    }

    @Test
    void theSdkParsesBaseTokensAsBaseDataTokens() throws Exception {
        String token = ChannelToken.base(7, 5L).encode();

        assertThat(Utils.isStreamToken(token)).isFalse();
        assertThat(Utils.parseRequestToken(token).getTotalCount()).isEqualTo(7);
    }

    @Test
    void tokensRoundTrip() {
        ChannelToken stream = ChannelToken.stream("p-0", 0, 9L);
        ChannelToken base = ChannelToken.base(1000, 11L);

        assertThat(ChannelToken.decode(stream.encode())).contains(stream);
        assertThat(ChannelToken.decode(base.encode())).contains(base);
    }

    @Test
    void foreignTextIsNoToken() {
        assertThat(ChannelToken.decode("finished")).isEmpty();
        assertThat(ChannelToken.decode("not base64 !")).isEmpty();
        assertThat(ChannelToken.decode("")).isEmpty();
        TunnelServiceApi.TokenContentV2 mismatched =
                TunnelServiceApi.TokenContentV2.newBuilder()
                        .setIterator("stream:p-1:5")
                        .setTotalCount(6)
                        .build();
        String token =
                Base64.getEncoder()
                        .encodeToString(
                                TunnelServiceApi.Token.newBuilder()
                                        .setVersion(2)
                                        .setContent(mismatched.toByteString())
                                        .build()
                                        .toByteArray());
        assertThat(ChannelToken.decode(token)).isEmpty();
    }
}
