/** The event types the demo provider sends for one user turn that ends in a function call, in order. */
export const functionCallTurn = [
  'session.created',
  'input_audio_buffer.speech_started',
  'input_audio_buffer.speech_stopped',
  'input_audio_buffer.committed',
  'conversation.item.added',
  'conversation.item.input_audio_transcription.completed',
  'response.created',
  'response.output_item.added',
  'conversation.item.added',
  'response.function_call_arguments.done',
  'response.output_item.done',
  'response.done',
];
