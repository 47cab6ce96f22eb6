package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.ClientException;
import com.alicloud.openservices.tablestore.core.Constants;
import com.alicloud.openservices.tablestore.core.OperationLauncher;
import com.alicloud.openservices.tablestore.core.ResponseContentWithMeta;
import com.alicloud.openservices.tablestore.core.TraceLogger;
import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.http.AsyncServiceClient;
import com.alicloud.openservices.tablestore.core.http.OTSUri;
import com.alicloud.openservices.tablestore.core.http.ResponseConsumer;
import com.alicloud.openservices.tablestore.core.http.ResponseMessage;
import com.alicloud.openservices.tablestore.core.protocol.ResultParseException;
import com.alicloud.openservices.tablestore.core.protocol.ResultParser;
import com.alicloud.openservices.tablestore.core.protocol.TunnelProtocolBuilder;
import com.alicloud.openservices.tablestore.model.NoRetryStrategy;
import com.alicloud.openservices.tablestore.model.OperationNames;
import com.alicloud.openservices.tablestore.model.Response;
import com.alicloud.openservices.tablestore.model.tunnel.internal.ReadRecordsRequest;
import com.aliyun.ots.thirdparty.org.apache.http.concurrent.FutureCallback;
import java.io.IOException;
import java.io.InputStream;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The tunnel's {@code readrecords} call through the SDK's own HTTP client, signing and error
 * handling, but stopping at the response body: the message is read in place ({@link
 * RecordsResponse}) and the records stay PlainBuffer bytes within it, which {@link
 * PlainBufferRecordPage} decodes on the reader's thread straight into the engine's row. The SDK
 * would build a protobuf message, then a {@code StreamRecord} object graph per record, on its I/O
 * thread, which the reader then copies again.
 *
 * <p>Everything on the wire is the SDK's: {@code TunnelProtocolBuilder} writes the request, the
 * SDK's {@code OperationLauncher} sends and signs it with the client's credentials and
 * configuration, and its response handlers check status, the body's MD5 and errors; a body that is
 * not a well-formed message fails as the SDK's parser fails it. Failures surface as the same {@code
 * TableStoreException} / {@code ClientException} the SDK's {@code TunnelClient} throws, so {@link
 * TransientRetry} classifies them alike.
 */
final class RawReadRecords {

    private final OTSUri uri;
    private final String instanceName;
    private final AsyncServiceClient http;
    private final CredentialsProvider credentials;
    private final ClientConfiguration config;

    RawReadRecords(
            String endpoint,
            String instanceName,
            AsyncServiceClient http,
            CredentialsProvider credentials,
            ClientConfiguration config) {
        this.uri = new OTSUri(endpoint, OperationNames.OP_READRECORDS);
        this.instanceName = instanceName;
        this.http = http;
        this.credentials = credentials;
        this.config = config;
    }

    /** One {@code readrecords} response, its records undecoded. */
    RecordsResponse read(ReadRecordsRequest request) {
        CompletableFuture<RecordsResponse> result = new CompletableFuture<>();
        new Launcher(request).fire(request, new Completion(result));
        return SdkWait.answer(result, config);
    }

    private final class Launcher extends OperationLauncher<ReadRecordsRequest, RecordsResponse> {

        Launcher(ReadRecordsRequest request) {
            super(instanceName, http, credentials, config, request);
        }

        @Override
        public void fire(ReadRecordsRequest request, FutureCallback<RecordsResponse> callback) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            TraceLogger tracer =
                    new TraceLogger(
                            new UUID(random.nextLong(), random.nextLong()).toString(),
                            config.getTimeThresholdOfTraceLogger());
            asyncInvokePost(
                    uri,
                    null,
                    TunnelProtocolBuilder.buildReadRecordsRequest(request),
                    tracer,
                    new MessageConsumer(tracer),
                    callback);
        }
    }

    /**
     * The SDK's response handling (trace info, the response handlers, closing the body, its parse
     * errors) with the body read in place where the SDK's parser would build its message.
     */
    private static final class MessageConsumer extends ResponseConsumer<RecordsResponse> {

        private final InPlaceParser parser;

        MessageConsumer(TraceLogger tracer) {
            this(tracer, new InPlaceParser());
        }

        private MessageConsumer(TraceLogger tracer, InPlaceParser parser) {
            super(parser, tracer, new NoRetryStrategy(), null);
            this.parser = parser;
        }

        @Override
        protected RecordsResponse parseResult() throws Exception {
            getResponseContentWithMeta();
            return parser.parsed();
        }
    }

    /** What the SDK's {@code ProtocolBufferParser} checks, with the message read in place. */
    static final class InPlaceParser implements ResultParser {

        private RecordsResponse parsed;

        /** The message the last {@link #getObject} read. */
        RecordsResponse parsed() {
            return parsed;
        }

        @Override
        public Object getObject(ResponseMessage response) throws ResultParseException {
            String requestId =
                    response.getLowerCaseHeadersMap().get(Constants.OTS_HEADER_REQUEST_ID);
            if (requestId == null) {
                throw new ClientException(
                        "The required header is missing: " + Constants.OTS_HEADER_REQUEST_ID);
            }
            try {
                InputStream content = response.getContent();
                if (content == null) {
                    throw new IOException("The response has no body.");
                }
                parsed = RecordsResponse.parse(content.readAllBytes());
            } catch (IOException e) {
                throw new ResultParseException(
                        "Failed to parse response as protocol buffer message.", e);
            }
            return new ResponseContentWithMeta(null, new Response(requestId));
        }
    }

    /** Completes the future with the response or with the exception the SDK would throw. */
    private record Completion(CompletableFuture<RecordsResponse> result)
            implements FutureCallback<RecordsResponse> {

        @Override
        public void completed(RecordsResponse response) {
            result.complete(response);
        }

        @Override
        public void failed(Exception e) {
            result.completeExceptionally(
                    e instanceof RuntimeException
                            ? e
                            : new ClientException("Unexpected error: " + e, e));
        }

        @Override
        public void cancelled() {
            result.completeExceptionally(new ClientException("request cancelled"));
        }
    }
}
