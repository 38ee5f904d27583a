{{/*
One Tidepool service: ServiceAccount, Deployment (two replicas behind leader election for
controllers), and a Service for its gRPC and HTTP ports. Values: see any service chart.
*/}}

{{- define "tidepool.name" -}}
{{- .Values.nameOverride | default .Chart.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "tidepool.labels" -}}
app.kubernetes.io/name: {{ include "tidepool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: tidepool
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}

{{- define "tidepool.selectorLabels" -}}
app.kubernetes.io/name: {{ include "tidepool.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "tidepool.serviceAccount" -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: tidepool-{{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
{{- end -}}

{{- define "tidepool.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
spec:
  selector:
    {{- include "tidepool.selectorLabels" . | nindent 4 }}
  ports:
    - {name: grpc, port: {{ .Values.ports.grpc }}, targetPort: grpc}
    - {name: http, port: {{ .Values.ports.http }}, targetPort: http}
{{- end -}}

{{- define "tidepool.deployment" -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "tidepool.name" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "tidepool.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      {{- include "tidepool.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "tidepool.selectorLabels" . | nindent 8 }}
      annotations:
        prometheus.io/scrape: "true"
        prometheus.io/port: {{ .Values.ports.http | quote }}
    spec:
      serviceAccountName: tidepool-{{ include "tidepool.name" . }}
      terminationGracePeriodSeconds: {{ add .Values.shutdownTimeoutSeconds 10 }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 65532
        seccompProfile: {type: RuntimeDefault}
      containers:
        - name: {{ include "tidepool.name" . }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          args:
            - --listen_address=0.0.0.0
            - --grpc_port={{ .Values.ports.grpc }}
            - --http_port={{ .Values.ports.http }}
            - --log_level={{ .Values.logLevel }}
            - --shutdown_timeout={{ .Values.shutdownTimeoutSeconds }}s
            {{- range .Values.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          ports:
            - {name: grpc, containerPort: {{ .Values.ports.grpc }}}
            - {name: http, containerPort: {{ .Values.ports.http }}}
          livenessProbe:
            httpGet: {path: /healthz, port: http}
            periodSeconds: 10
          readinessProbe:
            httpGet: {path: /readyz, port: http}
            periodSeconds: 5
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: {drop: [ALL]}
{{- end -}}
