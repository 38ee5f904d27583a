{{- define "slurm-cluster.name" -}}
{{- .Values.name | default .Release.Name -}}
{{- end -}}

{{- define "slurm-cluster.labels" -}}
app.kubernetes.io/name: slurm-cluster
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: tidepool
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "slurm-cluster.sshKeysSecret" -}}
{{- printf "%s-ssh-keys" (include "slurm-cluster.name" .) -}}
{{- end -}}
